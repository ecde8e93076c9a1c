package eval

import (
	"encoding/hex"
	"net"
	"path/filepath"
	"strconv"
	"strings"
)

// networkingFact builds Facter's networking fact: every interface with
// its IPv4 and IPv6 bindings (address, netmask, network; IPv6 with scope
// and flags), MAC and MTU, the interface's first (non link-local) address
// as ip/ip6, and the primary interface's values at the top.
func networkingFact(short, fqdn, domain string) map[string]any {
	out := map[string]any{"hostname": short, "fqdn": fqdn}
	if domain != "" {
		out["domain"] = domain
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return out
	}
	v6 := inet6Info()
	dhcp := dhcpServers()
	interfaces := map[string]any{}
	for _, ifc := range ifs {
		m := map[string]any{"mtu": int64(ifc.MTU)}
		if mac := ifc.HardwareAddr.String(); mac != "" && mac != "00:00:00:00:00:00" {
			m["mac"] = mac
		}
		if srv, ok := dhcp[ifc.Name]; ok {
			m["dhcp"] = srv
		}
		addrs, _ := ifc.Addrs()
		var b4, b6 []any
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			mask := net.IP(ipn.Mask)
			network := ipn.IP.Mask(ipn.Mask)
			if ip4 := ipn.IP.To4(); ip4 != nil {
				b4 = append(b4, map[string]any{"address": ip4.String(), "netmask": net.IP(ipn.Mask).To4().String(), "network": network.To4().String()})
				continue
			}
			b := map[string]any{"address": ipn.IP.String(), "netmask": mask.String(), "network": network.String()}
			if info, ok := v6[ipn.IP.String()]; ok {
				b["scope6"] = info.scope
				if len(info.flags) > 0 {
					b["flags"] = info.flags
				}
			}
			b6 = append(b6, b)
		}
		if len(b4) > 0 {
			m["bindings"] = b4
			first := pickBinding(b4)
			m["ip"], m["netmask"], m["network"] = first["address"], first["netmask"], first["network"]
		}
		if len(b6) > 0 {
			m["bindings6"] = b6
			first := pickBinding(b6)
			m["ip6"], m["netmask6"], m["network6"] = first["address"], first["netmask"], first["network"]
			if s, ok := first["scope6"]; ok {
				m["scope6"] = s
			}
		}
		interfaces[ifc.Name] = m
	}
	out["interfaces"] = interfaces
	primary := primaryInterface()
	if primary == "" {
		return out
	}
	out["primary"] = primary
	if p, ok := interfaces[primary].(map[string]any); ok {
		for _, k := range []string{"ip", "ip6", "mac", "mtu", "netmask", "netmask6", "network", "network6", "scope6", "dhcp"} {
			if v, ok := p[k]; ok {
				out[k] = v
			}
		}
	}
	return out
}

// pickBinding returns the binding Facter reports for an interface: the
// first that is not link-local, else the first.
func pickBinding(bs []any) map[string]any {
	for _, b := range bs {
		m := b.(map[string]any)
		a := net.ParseIP(m["address"].(string))
		if !a.IsLinkLocalUnicast() {
			return m
		}
	}
	return bs[0].(map[string]any)
}

type inet6 struct {
	scope string
	flags []any
}

// inet6Info reads the scope and flags of every IPv6 address from
// /proc/net/if_inet6.
func inet6Info() map[string]inet6 {
	out := map[string]inet6{}
	for _, line := range strings.Split(readString("/proc/net/if_inet6"), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || len(f[0]) != 32 {
			continue
		}
		raw, err := hex.DecodeString(f[0])
		if err != nil {
			continue
		}
		var info inet6
		switch f[3] {
		case "00":
			info.scope = "global"
		case "10":
			info.scope = "host"
		case "20":
			info.scope = "link"
		case "40":
			info.scope = "site"
		case "50":
			info.scope = "compat"
		}
		var flags uint64
		for _, c := range f[4] {
			flags = flags*16 + uint64(strings.IndexRune("0123456789abcdef", c))
		}
		for _, fl := range []struct {
			bit  uint64
			name string
		}{{0x01, "temporary"}, {0x02, "noad"}, {0x04, "optimistic"}, {0x08, "dadfailed"},
			{0x10, "homeaddress"}, {0x20, "deprecated"}, {0x40, "tentative"}, {0x80, "permanent"}} {
			if flags&fl.bit != 0 {
				info.flags = append(info.flags, fl.name)
			}
		}
		out[net.IP(raw).String()] = info
	}
	return out
}

// primaryInterface is the interface of the default IPv4 route.
func primaryInterface() string {
	for _, line := range strings.Split(readString("/proc/net/route"), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) >= 2 && f[1] == "00000000" {
			return f[0]
		}
	}
	return ""
}

// dhcpServers reads the DHCP servers of systemd-networkd's and dhclient's
// leases, by interface.
func dhcpServers() map[string]string {
	out := map[string]string{}
	leases, _ := filepath.Glob("/run/systemd/netif/leases/*")
	for _, l := range leases {
		idx := filepath.Base(l)
		var srv string
		for _, line := range strings.Split(readString(l), "\n") {
			if v, ok := strings.CutPrefix(line, "SERVER_ADDRESS="); ok {
				srv = v
			}
		}
		if ifc, err := net.InterfaceByName(idx); err == nil && srv != "" {
			out[ifc.Name] = srv
		} else if srv != "" {
			if ifs, err := net.Interfaces(); err == nil {
				for _, i := range ifs {
					if idx == strconv.Itoa(i.Index) {
						out[i.Name] = srv
					}
				}
			}
		}
	}
	files, _ := filepath.Glob("/var/lib/dhcp/dhclient*.leases")
	for _, f := range files {
		var ifc string
		for _, line := range strings.Split(readString(f), "\n") {
			line = strings.TrimSpace(line)
			if v, ok := strings.CutPrefix(line, "interface "); ok {
				ifc = strings.Trim(strings.TrimSuffix(v, ";"), `"`)
			}
			if v, ok := strings.CutPrefix(line, "option dhcp-server-identifier "); ok && ifc != "" {
				out[ifc] = strings.TrimSuffix(v, ";")
			}
		}
	}
	return out
}

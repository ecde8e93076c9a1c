// Package corenet holds the mcl module "net": addresses and URLs.
package corenet

import (
	"context"
	"net"
	"net/url"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

var (
	urlType  = types.MustParse("struct{scheme str; host str; path str; raw_query str}")
	hostPort = types.MustParse("struct{host str; port str}")
)

func s(v values.Value) string { return string(v.(values.Str)) }

func strs(t *types.Type, ss ...string) *values.Struct {
	st := &values.Struct{T: t, V: make([]values.Value, len(ss))}
	for i, x := range ss {
		st.V[i] = values.Str(x)
	}
	return st
}

func cidr(name string, fn func(ip net.IP, n *net.IPNet) string, opts ...funcs.Option) {
	funcs.Register("net", name, "func(a str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		ip, n, err := net.ParseCIDR(s(a[0]))
		if err != nil {
			return nil, funcs.Catchablef("%s: %v", name, err)
		}
		return values.Str(fn(ip, n)), nil
	}, opts...)
}

func init() {
	funcs.Register("net", "url_parser", "func(a str) "+urlType.String(), func(ctx context.Context, a []values.Value) (values.Value, error) {
		u, err := url.Parse(s(a[0]))
		if err != nil {
			return nil, funcs.Catchablef("url_parser: %v", err)
		}
		return strs(urlType, u.Scheme, u.Host, u.Path, u.RawQuery), nil
	}, funcs.Doc("The scheme, host, path and raw query of a URL.", `net.url_parser("https://example.com/a?b=c")`))
	funcs.Register("net", "split_hostport", "func(a str) "+hostPort.String(), func(ctx context.Context, a []values.Value) (values.Value, error) {
		h, p, err := net.SplitHostPort(s(a[0]))
		if err != nil {
			return nil, funcs.Catchablef("split_hostport: %v", err)
		}
		return strs(hostPort, h, p), nil
	}, funcs.Doc(`Splits "host:port" (or "[v6]:port").`, `net.split_hostport("example.com:443")`))
	funcs.Register("net", "is_mac", "func(a str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		_, err := net.ParseMAC(s(a[0]))
		return values.Bool(err == nil), nil
	}, funcs.Doc("Whether a str is a MAC address.", `net.is_mac("00:11:22:33:44:55")`))
	funcs.Register("net", "macfmt", "func(a str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		m, err := net.ParseMAC(s(a[0]))
		if err != nil {
			return nil, funcs.Catchablef("macfmt: %v", err)
		}
		return values.Str(m.String()), nil
	}, funcs.Doc("A MAC address in lower case with colons.", `net.macfmt("00-11-22-AA-BB-CC")`))
	funcs.Register("net", "oldmacfmt", "func(a str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		m, err := net.ParseMAC(s(a[0]))
		if err != nil {
			return nil, funcs.Catchablef("oldmacfmt: %v", err)
		}
		return values.Str(strings.ReplaceAll(m.String(), ":", "-")), nil
	}, funcs.Doc("A MAC address in lower case with dashes.", `net.oldmacfmt("00:11:22:aa:bb:cc")`))
	funcs.Register("net", "ip_in_cidr", "func(ip str, cidr str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		ip := net.ParseIP(s(a[0]))
		_, n, err := net.ParseCIDR(s(a[1]))
		if ip == nil || err != nil {
			return nil, funcs.Catchablef("ip_in_cidr: bad input")
		}
		return values.Bool(n.Contains(ip)), nil
	}, funcs.Doc("Whether an address lies in a CIDR network.", `net.ip_in_cidr("192.0.2.7", "192.0.2.0/24")`))
	cidr("cidr_to_ip", func(ip net.IP, n *net.IPNet) string { return ip.String() }, funcs.Doc("The address part of a CIDR.", `net.cidr_to_ip("192.0.2.7/24")`))
	cidr("cidr_to_mask", func(ip net.IP, n *net.IPNet) string { return net.IP(n.Mask).String() }, funcs.Doc("The netmask of a CIDR, dotted.", `net.cidr_to_mask("192.0.2.7/24")`))
	cidr("cidr_to_prefix", func(ip net.IP, n *net.IPNet) string { o, _ := n.Mask.Size(); return itoa(o) }, funcs.Doc("The prefix length of a CIDR, as a str.", `net.cidr_to_prefix("192.0.2.7/24")`))
	cidr("cidr_to_network", func(ip net.IP, n *net.IPNet) string { return n.IP.String() }, funcs.Doc("The network address of a CIDR.", `net.cidr_to_network("192.0.2.7/24")`))
	cidr("cidr_to_first", func(ip net.IP, n *net.IPNet) string { return n.IP.String() }, funcs.Doc("The first host address of a CIDR network.", `net.cidr_to_first("192.0.2.0/24")`))
	cidr("cidr_to_last", func(ip net.IP, n *net.IPNet) string {
		last := make(net.IP, len(n.IP))
		for i := range n.IP {
			last[i] = n.IP[i] | ^n.Mask[i]
		}
		return last.String()
	}, funcs.Doc("The last host address of a CIDR network.", `net.cidr_to_last("192.0.2.0/24")`))
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

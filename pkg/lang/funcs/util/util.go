// Package util holds the mcl module "util": hostname_mapper(m) names this
// host after the network cards it has. m maps MAC addresses
// ("00:11:22:33:44:55", compared whatever their case) to host names; the
// result is the one name the MAC addresses of the host's interfaces map
// to, loopback excluded, or "" when none of them is in m (entries whose
// name is "" count as absent). Interfaces mapped to two different names
// are an error, as the host's name would be ambiguous.
package util

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func init() {
	if funcs.IsModule("util") {
		return // registered by another package already (the core's packages initialise first)
	}
	funcs.RegisterFunc(&funcs.Func{Module: "util", Name: "hostname_mapper", Sigs: funcs.Sigs("func(m map{str: str}) str"),
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			macs, err := LocalMACs()
			if err != nil {
				return nil, err
			}
			return Map(c.Args[0].(*values.Map), macs)
		}, Doc: `The host name that the MAC addresses of this host's network interfaces map to in m (MAC address => name), "" when none is in m; interfaces mapped to two names are an error.`,
		Example: `util.hostname_mapper({"00:11:22:33:44:55" => "web1"})`})
}

// LocalMACs returns the MAC addresses (six bytes, in the form
// "00:11:22:33:44:55") of the host's interfaces other than loopback.
func LocalMACs() ([]string, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("listing the network interfaces: %v", err)
	}
	var macs []string
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback != 0 || len(i.HardwareAddr) != 6 {
			continue
		}
		macs = append(macs, i.HardwareAddr.String())
	}
	return macs, nil
}

// Map returns the name m gives the MAC addresses macs (see the package
// comment).
func Map(m *values.Map, macs []string) (values.Value, error) {
	byMAC := map[string]string{}
	for i, k := range m.Keys {
		if name := string(m.Vals[i].(values.Str)); name != "" {
			byMAC[strings.ToLower(string(k.(values.Str)))] = name
		}
	}
	var names []string
	for _, mac := range macs {
		if name, ok := byMAC[strings.ToLower(mac)]; ok && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	switch len(names) {
	case 0:
		return values.Str(""), nil
	case 1:
		return values.Str(names[0]), nil
	}
	slices.Sort(names)
	return nil, funcs.Catchablef("hostname_mapper: this host's interfaces map to several names: %s", strings.Join(names, ", "))
}

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

func cidr(name string, fn func(ip net.IP, n *net.IPNet) string) {
	funcs.Register("net", name, "func(a str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		ip, n, err := net.ParseCIDR(s(a[0]))
		if err != nil {
			return nil, funcs.Catchablef("%s: %v", name, err)
		}
		return values.Str(fn(ip, n)), nil
	})
}

func init() {
	funcs.Register("net", "url_parser", "func(a str) "+urlType.String(), func(ctx context.Context, a []values.Value) (values.Value, error) {
		u, err := url.Parse(s(a[0]))
		if err != nil {
			return nil, funcs.Catchablef("url_parser: %v", err)
		}
		return strs(urlType, u.Scheme, u.Host, u.Path, u.RawQuery), nil
	})
	funcs.Register("net", "split_hostport", "func(a str) "+hostPort.String(), func(ctx context.Context, a []values.Value) (values.Value, error) {
		h, p, err := net.SplitHostPort(s(a[0]))
		if err != nil {
			return nil, funcs.Catchablef("split_hostport: %v", err)
		}
		return strs(hostPort, h, p), nil
	})
	funcs.Register("net", "is_mac", "func(a str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		_, err := net.ParseMAC(s(a[0]))
		return values.Bool(err == nil), nil
	})
	funcs.Register("net", "macfmt", "func(a str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		m, err := net.ParseMAC(s(a[0]))
		if err != nil {
			return nil, funcs.Catchablef("macfmt: %v", err)
		}
		return values.Str(m.String()), nil
	})
	funcs.Register("net", "oldmacfmt", "func(a str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		m, err := net.ParseMAC(s(a[0]))
		if err != nil {
			return nil, funcs.Catchablef("oldmacfmt: %v", err)
		}
		return values.Str(strings.ReplaceAll(m.String(), ":", "-")), nil
	})
	funcs.Register("net", "ip_in_cidr", "func(ip str, cidr str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		ip := net.ParseIP(s(a[0]))
		_, n, err := net.ParseCIDR(s(a[1]))
		if ip == nil || err != nil {
			return nil, funcs.Catchablef("ip_in_cidr: bad input")
		}
		return values.Bool(n.Contains(ip)), nil
	})
	cidr("cidr_to_ip", func(ip net.IP, n *net.IPNet) string { return ip.String() })
	cidr("cidr_to_mask", func(ip net.IP, n *net.IPNet) string { return net.IP(n.Mask).String() })
	cidr("cidr_to_prefix", func(ip net.IP, n *net.IPNet) string { o, _ := n.Mask.Size(); return itoa(o) })
	cidr("cidr_to_network", func(ip net.IP, n *net.IPNet) string { return n.IP.String() })
	cidr("cidr_to_first", func(ip net.IP, n *net.IPNet) string { return n.IP.String() })
	cidr("cidr_to_last", func(ip net.IP, n *net.IPNet) string {
		last := make(net.IP, len(n.IP))
		for i := range n.IP {
			last[i] = n.IP[i] | ^n.Mask[i]
		}
		return last.String()
	})
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

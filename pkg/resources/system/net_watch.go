package system

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"

	"github.com/vishvananda/netlink/nl"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// Watch listens on a netlink socket for link, address and route changes
// in the resource's namespace and reports those about its link (by index,
// or by name for a link made again) and, when a gateway is managed, every
// change of a default route; it also follows the networkd file.
func (r *NetRes) Watch(ctx context.Context) error {
	sock, err := r.subscribe()
	if err != nil {
		return err
	}
	if r.State != "" {
		f, err := newNestedFile(r.init, r.networkFile(), r.networkContent())
		if err != nil {
			sock.Close()
			return err
		}
		stop, err := f.watch(ctx, r.init.Event)
		if err != nil {
			sock.Close()
			return err
		}
		defer stop()
	}
	index := 0
	if h, err := r.handle(); err == nil {
		if l, err := h.LinkByName(r.Name()); err == nil {
			index = l.Attrs().Index
		}
		h.Close()
	}
	msgs := make(chan []syscall.NetlinkMessage)
	done := make(chan error, 1)
	go func() {
		defer close(msgs)
		for {
			m, _, err := sock.Receive()
			if errors.Is(err, unix.ENOBUFS) {
				m = nil // messages were lost: report a change
			} else if err != nil {
				done <- err
				return
			}
			select {
			case msgs <- m:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer func() {
		sock.Close() // ends the receiving goroutine
		for range msgs {
		}
	}()
	r.init.Running()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-done:
			return fmt.Errorf("netlink: %v", err)
		case m := <-msgs:
			if m == nil || r.relevant(m, &index) {
				r.init.Event()
			}
		}
	}
}

// subscribe opens the netlink socket in the resource's namespace.
func (r *NetRes) subscribe() (*nl.NetlinkSocket, error) {
	groups := []uint{unix.RTNLGRP_LINK, unix.RTNLGRP_IPV4_IFADDR, unix.RTNLGRP_IPV6_IFADDR, unix.RTNLGRP_IPV4_ROUTE}
	if r.Netns == "" {
		s, err := nl.Subscribe(unix.NETLINK_ROUTE, groups...)
		if err != nil {
			return nil, fmt.Errorf("netlink subscribe: %v", err)
		}
		return s, nil
	}
	ns, err := netns.GetFromPath(r.Netns)
	if err != nil {
		return nil, fmt.Errorf("network namespace %s: %v", r.Netns, err)
	}
	defer ns.Close()
	s, err := nl.SubscribeAt(ns, netns.None(), unix.NETLINK_ROUTE, groups...)
	if err != nil {
		return nil, fmt.Errorf("netlink subscribe in %s: %v", r.Netns, err)
	}
	return s, nil
}

// relevant reports whether one of the messages concerns the link (whose
// index it keeps up to date) or a default route the resource manages.
func (r *NetRes) relevant(msgs []syscall.NetlinkMessage, index *int) bool {
	found := false
	for _, m := range msgs {
		switch m.Header.Type {
		case unix.RTM_NEWLINK, unix.RTM_DELLINK:
			if len(m.Data) < unix.SizeofIfInfomsg {
				continue
			}
			idx := int(int32(binary.NativeEndian.Uint32(m.Data[4:8])))
			if idx == *index || linkName(m.Data[unix.SizeofIfInfomsg:]) == r.Name() {
				*index = idx
				found = true
			}
		case unix.RTM_NEWADDR, unix.RTM_DELADDR:
			if len(m.Data) >= unix.SizeofIfAddrmsg && int(binary.NativeEndian.Uint32(m.Data[4:8])) == *index {
				found = true
			}
		case unix.RTM_NEWROUTE, unix.RTM_DELROUTE:
			found = found || r.routeRelevant(m.Data, *index)
		}
	}
	return found
}

// linkName returns the IFLA_IFNAME attribute of a link message.
func linkName(attrs []byte) string {
	as, err := nl.ParseRouteAttr(attrs)
	if err != nil {
		return ""
	}
	for _, a := range as {
		if a.Attr.Type == unix.IFLA_IFNAME {
			return string(trimNUL(a.Value))
		}
	}
	return ""
}

func trimNUL(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}

// routeRelevant reports whether a route message is about a route through
// the link, or is a default route while a gateway is managed.
func (r *NetRes) routeRelevant(data []byte, index int) bool {
	if len(data) < unix.SizeofRtMsg {
		return false
	}
	if data[1] == 0 && r.Gateway != "" { // rtm_dst_len 0: a default route
		return true
	}
	as, err := nl.ParseRouteAttr(data[unix.SizeofRtMsg:])
	if err != nil {
		return false
	}
	for _, a := range as {
		if a.Attr.Type == unix.RTA_OIF && len(a.Value) >= 4 && int(binary.NativeEndian.Uint32(a.Value)) == index {
			return true
		}
	}
	return false
}

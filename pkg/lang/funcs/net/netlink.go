package net

import (
	"errors"
	"os"
	"syscall"
)

// Multicast groups of NETLINK_ROUTE (rtnetlink.h).
const (
	rtmgrpLink       = 0x1
	rtmgrpIPv4IfAddr = 0x10
	rtmgrpIPv6IfAddr = 0x100
)

// subscribe opens a netlink socket listening to link and address changes.
// The channel receives a value after each datagram read and is closed when
// stop is called or the socket fails; stop returns once the goroutine
// reading the socket has ended.
func subscribe() (<-chan struct{}, func(), error) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, syscall.NETLINK_ROUTE)
	if err != nil {
		return nil, nil, os.NewSyscallError("socket", err)
	}
	sa := &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK, Groups: rtmgrpLink | rtmgrpIPv4IfAddr | rtmgrpIPv6IfAddr}
	if err := syscall.Bind(fd, sa); err != nil {
		syscall.Close(fd)
		return nil, nil, os.NewSyscallError("bind", err)
	}
	// A non-blocking descriptor wrapped in an *os.File uses the runtime's
	// poller, so Close interrupts a pending Read.
	f := os.NewFile(uintptr(fd), "netlink")
	ch := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(ch)
		buf := make([]byte, 1<<16)
		for {
			if _, err := f.Read(buf); err != nil && !errors.Is(err, syscall.ENOBUFS) {
				return // closed; ENOBUFS only means lost notifications
			}
			select {
			case ch <- struct{}{}:
			default: // a notification is already pending
			}
		}
	}()
	return ch, func() {
		f.Close()
		<-done
	}, nil
}

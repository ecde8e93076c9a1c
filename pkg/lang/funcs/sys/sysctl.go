package sys

import (
	"context"
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// kernelHostname is the sysctl file the kernel flags (POLLPRI, POLLERR)
// when the hostname of the UTS namespace changes.
const kernelHostname = "/proc/sys/kernel/hostname"

// notifySysctl sends on changed each time the kernel flags path, until ctx
// is done. A pipe in the poll set wakes it up for cancellation; the
// write that wakes it has ended before the pipe is closed.
func notifySysctl(ctx context.Context, path string, changed chan<- struct{}) error {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return os.NewSyscallError("pipe2", err)
	}
	defer unix.Close(p[0])
	woken := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(woken)
		unix.Write(p[1], []byte{0})
	})
	defer func() {
		if !stop() {
			<-woken
		}
		unix.Close(p[1])
	}()
	buf := make([]byte, 256)
	for {
		// Reading from the start re-arms the notification.
		if _, err := unix.Pread(fd, buf, 0); err != nil {
			return os.NewSyscallError("pread", err)
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLPRI}, {Fd: int32(p[0]), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return os.NewSyscallError("poll", err)
		}
		if fds[1].Revents != 0 {
			return nil
		}
		if fds[0].Revents&(unix.POLLPRI|unix.POLLERR) != 0 {
			select {
			case changed <- struct{}{}:
			default: // one pending notification is enough
			}
		}
	}
}

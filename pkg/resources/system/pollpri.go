package system

import (
	"context"
	"fmt"

	"golang.org/x/sys/unix"
)

// watchPollPri calls event whenever the kernel flags path with POLLPRI.
// /proc/self/mountinfo does so on every mount table change and
// /proc/sys/kernel/hostname on every sethostname(2). A pipe closed on
// ctx.Done wakes the blocking poll.
func watchPollPri(ctx context.Context, path string, running, event func()) error {
	// A raw descriptor, not an *os.File: the runtime's epoll would poll it
	// too, and each poll of these files consumes the change it reports.
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %v", path, err)
	}
	defer unix.Close(fd)
	// reading once records the current state; poll then reports changes
	if err := drainFd(fd); err != nil {
		return fmt.Errorf("read %s: %v", path, err)
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return err
	}
	defer unix.Close(p[0])
	stop := context.AfterFunc(ctx, func() { unix.Close(p[1]) })
	defer func() {
		if stop() {
			unix.Close(p[1])
		}
	}()
	running()
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLPRI}, {Fd: int32(p[0]), Events: unix.POLLIN}}
	for {
		fds[0].Revents, fds[1].Revents = 0, 0
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return fmt.Errorf("poll %s: %v", path, err)
		}
		if fds[1].Revents != 0 || ctx.Err() != nil {
			return nil
		}
		if fds[0].Revents&(unix.POLLPRI|unix.POLLERR) != 0 {
			if _, err := unix.Seek(fd, 0, 0); err == nil {
				drainFd(fd)
			}
			event()
		}
	}
}

// drainFd reads fd to its end.
func drainFd(fd int) error {
	buf := make([]byte, 64*1024)
	for {
		n, err := unix.Read(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return err
		}
	}
}

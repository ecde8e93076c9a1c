package system

import (
	"context"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// watchPollPri calls event whenever the kernel flags path with POLLPRI.
// /proc/self/mountinfo does so on every mount table change and
// /proc/sys/kernel/hostname on every sethostname(2). A pipe closed on
// ctx.Done wakes the blocking poll.
func watchPollPri(ctx context.Context, path string, running, event func()) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	// reading once records the current state; poll then reports changes
	if _, err := io.Copy(io.Discard, f); err != nil {
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
	fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLPRI}, {Fd: int32(p[0]), Events: unix.POLLIN}}
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
			if _, err := f.Seek(0, io.SeekStart); err == nil {
				io.Copy(io.Discard, f)
			}
			event()
		}
	}
}

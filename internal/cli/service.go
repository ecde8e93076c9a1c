package cli

import (
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
)

// Notify tells the service manager that started the tool (systemd, through
// the datagram socket $NOTIFY_SOCKET names) the state lines given:
// "READY=1", "RELOADING=1", "STATUS=...". Without a service manager it
// does nothing; a manager that cannot be reached is not the tool's
// failure, so errors are dropped.
func Notify(state ...string) {
	daemon.SdNotify(false, strings.Join(state, "\n"))
}

// Hangups returns a channel that receives each SIGHUP, and the function
// that stops the delivery. While it runs, SIGHUP does not end the tool:
// a service manager's reload (or a closed terminal) is the tool's to
// handle.
func Hangups() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	return ch, func() { signal.Stop(ch) }
}

// OnHangup calls fn for each SIGHUP, one call at a time in a goroutine of
// its own, until the returned function is called, which waits for a call
// in progress to return.
func OnHangup(fn func()) func() {
	hup, stopHup := Hangups()
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-hup:
				fn()
			}
		}
	}()
	return func() {
		stopHup()
		close(stop)
		<-done
	}
}

// Watchdog sends "WATCHDOG=1" to the service manager at half the interval
// $WATCHDOG_USEC asks for (systemd's WatchdogSec=), from a goroutine of its
// own, until the returned function is called, which waits for it to end.
// Without a watchdog (or when $WATCHDOG_PID names another process) it
// starts nothing.
func Watchdog() func() {
	interval, err := daemon.SdWatchdogEnabled(false)
	if err != nil || interval <= 0 {
		return func() {}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval / 2)
		defer t.Stop()
		for {
			Notify("WATCHDOG=1")
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(stop)
		<-done
	}
}

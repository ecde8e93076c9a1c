package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// A SignalError is the cause (context.Cause) of a context SignalContext
// cancelled: the signal that stopped the tool.
type SignalError struct{ Signal os.Signal }

func (e *SignalError) Error() string { return e.Signal.String() + " signal received" }

// SignalContext returns a context cancelled by the first SIGINT or SIGTERM
// (its cause a *SignalError), and the function that releases the signals
// and ends the goroutine waiting for them.
func SignalContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case s := <-ch:
			cancel(&SignalError{s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
		<-done
	}
}

// Signaled returns the signal that cancelled ctx, when a signal did (see
// SignalContext).
func Signaled(ctx context.Context) (os.Signal, bool) {
	var se *SignalError
	if errors.As(context.Cause(ctx), &se) {
		return se.Signal, true
	}
	return nil, false
}

// ExitSignal is the exit code of a tool stopped by sig before it was done:
// 128 plus the signal's number, as shells report a process a signal
// killed (130 for SIGINT, 143 for SIGTERM).
func ExitSignal(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return ExitFail
}

package resources

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
)

// Watch follows what makes the command due and what its guards read: each
// line of watchcmd's output, each tick of watchinterval and each change
// below a watchfiles path make the command due; a change of creates or of an mtimes file is an event
// for CheckApply to judge. Without any of them, nothing but a refresh or
// a poll runs the command again.
func (obj *ExecRes) Watch(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait() // runs last: after cancel below ended the goroutines
	defer cancel()

	dueC := make(chan struct{}, 1)   // watchcmd printed a line, a watchfiles path changed
	checkC := make(chan struct{}, 1) // creates or an mtimes file changed
	var subs []*fswatch.Sub
	defer func() {
		for _, s := range subs {
			s.Close()
		}
	}()
	follow := func(path string, opts fswatch.Options, c chan struct{}) error {
		w, err := fswatch.Default()
		if err != nil {
			return err
		}
		s, err := w.Subscribe(path, opts)
		if err != nil {
			return err
		}
		subs = append(subs, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			forwardSignals(ctx, s.C, c)
		}()
		return nil
	}
	for _, p := range obj.WatchFiles {
		opts := fswatch.Options{}
		if strings.HasSuffix(p, "/") {
			opts = fswatch.Options{Contents: true, Recursive: true}
		}
		if err := follow(p, opts, dueC); err != nil {
			return err
		}
	}
	for _, p := range append(obj.MTimes, obj.Creates) {
		if p != "" {
			if err := follow(p, fswatch.Options{}, checkC); err != nil {
				return err
			}
		}
	}
	watchErr := make(chan error, 1)
	if obj.WatchCmd != "" {
		if err := obj.startWatchCmd(ctx, &wg, dueC, watchErr); err != nil {
			return err
		}
	}
	if obj.WatchInterval > 0 {
		t := time.NewTicker(time.Duration(obj.WatchInterval) * time.Second)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer t.Stop()
			forwardSignals(ctx, t.C, dueC)
		}()
	}
	obj.init.Running()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-watchErr:
			if ctx.Err() != nil {
				return nil
			}
			select {
			case <-dueC: // the lines printed before the exit count
				obj.mu.Lock()
				obj.dirty = true
				obj.mu.Unlock()
				obj.init.Event()
			default:
			}
			return err
		case <-dueC:
			obj.mu.Lock()
			obj.dirty = true
			obj.mu.Unlock()
		case <-checkC:
		}
		for _, s := range subs {
			if err := s.Err(); err != nil {
				return err // a kernel limit: the engine polls instead
			}
		}
		obj.init.Event()
	}
}

// forwardSignals passes each value of in, as a signal, to the one-slot
// channel out, coalescing, until ctx is done.
func forwardSignals[T any](ctx context.Context, in <-chan T, out chan struct{}) {
	for {
		select {
		case <-in:
			select {
			case out <- struct{}{}:
			default:
			}
		case <-ctx.Done():
			return
		}
	}
}

// startWatchCmd starts watchcmd and a goroutine, counted in wg, that
// signals lines each time it prints a line and sends to errc why it ended
// (an exit, even a clean one, ends the watch with an error).
func (obj *ExecRes) startWatchCmd(ctx context.Context, wg *sync.WaitGroup, lines chan struct{}, errc chan<- error) error {
	cmd, err := obj.command(ctx, obj.WatchCmd, nil, obj.WatchShell, obj.WatchCwd)
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := startCommand(cmd); err != nil {
		return fmt.Errorf("watchcmd: %v", err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			select {
			case lines <- struct{}{}:
			default:
			}
		}
		if err := sc.Err(); err != nil { // a line over a MiB: stop reading
			cmd.Cancel()
			waitCommand(cmd)
			errc <- fmt.Errorf("watchcmd: %v", err)
			return
		}
		if err := waitCommand(cmd); err != nil {
			errc <- fmt.Errorf("watchcmd exited: %v", err)
			return
		}
		errc <- fmt.Errorf("watchcmd exited")
	}()
	return nil
}

package system

import (
	"context"
	"fmt"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/resources"
)

// A nestedFile is a file resource that a kind runs inside itself to keep
// one file it generates (a timer's unit file, a networkd file) at a
// content, or absent. It is a real file resource: the same atomic writes,
// the same rules about symbolic links, the same shared watcher.
type nestedFile struct {
	res   *resources.FileRes
	init  engine.Init
	hooks engine.Funcs // its owner's, but for Running, Event, Refresh and Recv
}

// newNestedFile returns a file resource keeping path at content with mode
// 0644, or absent when content is nil. The owner's handle gives it its
// log; its Running and Event are replaced while it watches.
func newNestedFile(owner *engine.Init, path string, content *string) (*nestedFile, error) {
	f := &resources.FileRes{State: "exists", Content: content, Mode: "0644"}
	if content == nil {
		f.State, f.Mode = "absent", ""
	}
	f.SetKind("file")
	f.SetName(path)
	if err := f.Validate(); err != nil {
		return nil, err
	}
	n := &nestedFile{res: f}
	if owner != nil {
		n.init = *owner
	} else {
		n.init.Env = &engine.Env{}
	}
	n.hooks = engine.Funcs{Base: n.init.Hooks, RunningFunc: func() {}, EventFunc: func() {},
		RefreshFunc: func() bool { return false }, RecvFunc: func() map[string]*engine.Send { return nil }}
	n.init.Hooks = &n.hooks
	if err := f.Init(&n.init); err != nil {
		return nil, err
	}
	return n, nil
}

// checkApply runs the file's CheckApply and reports whether it changed
// (or, with apply false, would change) the file.
func (n *nestedFile) checkApply(ctx context.Context, apply bool) (bool, error) {
	ok, err := n.res.CheckApply(ctx, apply)
	return !ok, err
}

// watch runs the file's Watch, calling event on each change, and returns
// once it is running; stop cancels it and waits for it to end.
func (n *nestedFile) watch(ctx context.Context, event func()) (stop func() error, err error) {
	ctx, cancel := context.WithCancel(ctx)
	running := make(chan struct{})
	done := make(chan error, 1)
	n.hooks.RunningFunc = func() { close(running) }
	n.hooks.EventFunc = event
	go func() { done <- n.res.Watch(ctx) }()
	stop = func() error {
		cancel()
		return <-done
	}
	select {
	case <-running:
		return stop, nil
	case err := <-done:
		cancel()
		if err == nil {
			err = fmt.Errorf("watch of %s ended", n.res.Name())
		}
		return nil, err
	case <-time.After(time.Minute):
		stop()
		return nil, fmt.Errorf("watch of %s did not start in a minute", n.res.Name())
	}
}

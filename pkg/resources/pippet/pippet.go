// Package pippet is the pippet resource: a Puppet resource (type, title,
// parameters) that the engine cannot run natively, applied by Puppet
// itself. puppet-graph emits it for every resource it cannot translate.
//
// Starting Puppet costs seconds, so all pippet resources of a process share
// one warm Puppet worker (worker.rb, run by ruby with Puppet's libraries):
// CheckApply sends the resource as one JSON line and reads one JSON answer.
// A check (apply false) runs the resource with noop set, so Puppet reports
// whether it is out of sync without changing anything; an apply runs it
// for real, and a received refresh calls the type's refresh (exec
// refreshonly, service restart). The worker starts with the first pippet
// resource's Init and stops after the last one's Cleanup.
package pippet

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

//go:embed worker.rb
var workerScript string

func init() {
	engine.RegisterResource("pippet", func() engine.Res { return &PippetRes{} })
}

// PippetRes is one Puppet resource run through Puppet.
type PippetRes struct {
	traits.Base
	traits.Refreshable

	// Type is the Puppet type, lower case: host, cron, exec.
	Type string `lang:"type" yaml:"type"`
	// Title is the Puppet title.
	Title string `lang:"title" yaml:"title"`
	// Params is a JSON object of the Puppet parameters.
	Params string `lang:"params" yaml:"params"`

	init *engine.Init
	w    *worker
}

// Collectable is false: a pippet resource is any Puppet resource, its
// parameters can name another target than its title (a file's path, an
// exec's command), so a host never takes one from an exporter.
func (obj *PippetRes) Collectable() bool { return false }

// Default returns a pippet resource with no parameters.
func (obj *PippetRes) Default() engine.Res { return &PippetRes{Params: "{}"} }

// Validate checks that the type and title are set and params is a JSON
// object.
func (obj *PippetRes) Validate() error {
	if obj.Type == "" {
		return fmt.Errorf("type is empty")
	}
	if obj.Title == "" {
		return fmt.Errorf("title is empty")
	}
	if _, err := obj.params(); err != nil {
		return err
	}
	return nil
}

func (obj *PippetRes) params() (map[string]any, error) {
	var m map[string]any
	p := obj.Params
	if strings.TrimSpace(p) == "" {
		p = "{}"
	}
	if err := json.Unmarshal([]byte(p), &m); err != nil {
		return nil, fmt.Errorf("params: want a JSON object: %v", err)
	}
	return m, nil
}

// Init starts (or joins) the shared Puppet worker.
func (obj *PippetRes) Init(init *engine.Init) error {
	obj.init = init
	w, err := acquire()
	if err != nil {
		return err
	}
	obj.w = w
	return nil
}

// Cleanup leaves the worker, which stops with its last user.
func (obj *PippetRes) Cleanup() error {
	if obj.w != nil {
		release(obj.w)
		obj.w = nil
	}
	return nil
}

// Watch has no event source: Puppet resources are checked when the engine
// runs them (set the poll metaparameter to recheck periodically).
func (obj *PippetRes) Watch(ctx context.Context) error {
	obj.init.Running()
	<-ctx.Done()
	return nil
}

// CheckApply hands the resource to Puppet: with noop to check, for real to
// apply.
func (obj *PippetRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	params, err := obj.params()
	if err != nil {
		return false, err
	}
	refresh := obj.init != nil && obj.init.Refresh != nil && obj.init.Refresh()
	req := request{Type: obj.Type, Title: obj.Title, Params: params, Noop: !apply, Refresh: refresh && apply}
	resp, err := obj.w.do(ctx, req)
	if err != nil {
		return false, err
	}
	if obj.init != nil && obj.init.Logf != nil {
		for _, m := range resp.Messages {
			obj.init.Logf("%s", m)
		}
	}
	if resp.Failed {
		return false, fmt.Errorf("puppet failed to apply %s[%s]: %s", obj.Type, obj.Title, strings.Join(resp.Messages, "; "))
	}
	if !apply {
		return !resp.OutOfSync && !refresh, nil
	}
	return !resp.Changed && !resp.OutOfSync, nil
}

// Cmp compares two pippet resources.
func (obj *PippetRes) Cmp(r engine.Res) error {
	res, ok := r.(*PippetRes)
	if !ok {
		return fmt.Errorf("not a %T", obj)
	}
	if obj.Type != res.Type || obj.Title != res.Title {
		return fmt.Errorf("the resource differs")
	}
	a, err1 := obj.params()
	b, err2 := res.params()
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if err1 != nil || err2 != nil || string(ja) != string(jb) {
		return fmt.Errorf("the params differ")
	}
	return nil
}

type request struct {
	Type    string         `json:"type"`
	Title   string         `json:"title"`
	Params  map[string]any `json:"params"`
	Noop    bool           `json:"noop"`
	Refresh bool           `json:"refresh"`
}

type response struct {
	OutOfSync bool     `json:"out_of_sync"`
	Changed   bool     `json:"changed"`
	Failed    bool     `json:"failed"`
	Messages  []string `json:"messages"`
	Error     string   `json:"error"`
}

// A worker is the running Puppet process; mu serializes requests.
type worker struct {
	mu    sync.Mutex
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	users int
	dead  error
}

var (
	shared   *worker
	sharedMu sync.Mutex
)

// Command is the interpreter the worker runs in ("ruby" from PATH).
var Command = "ruby"

func acquire() (*worker, error) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil && shared.dead == nil {
		shared.users++
		return shared, nil
	}
	ruby, err := exec.LookPath(Command)
	if err != nil {
		return nil, fmt.Errorf("pippet needs Puppet (ruby and the puppet libraries): %v", err)
	}
	cmd := exec.Command(ruby, "-e", workerScript)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the Puppet worker: %v", err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	shared = &worker{cmd: cmd, in: in, out: sc, users: 1}
	return shared, nil
}

func release(w *worker) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	w.users--
	if w.users > 0 {
		return
	}
	w.in.Close()
	w.cmd.Wait()
	if shared == w {
		shared = nil
	}
}

// do sends one request and waits for its answer. A cancelled context kills
// the worker (the next resource starts a new one).
func (w *worker) do(ctx context.Context, req request) (*response, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dead != nil {
		return nil, w.dead
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			w.cmd.Process.Kill()
		case <-done:
		}
	}()
	if _, err := w.in.Write(append(b, '\n')); err != nil {
		w.dead = fmt.Errorf("the Puppet worker is gone: %v", err)
		return nil, w.dead
	}
	if !w.out.Scan() {
		err := w.out.Err()
		if err == nil {
			err = errors.New("it exited")
		}
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		w.dead = fmt.Errorf("the Puppet worker is gone: %v", err)
		return nil, w.dead
	}
	var resp response
	if err := json.Unmarshal(w.out.Bytes(), &resp); err != nil {
		return nil, fmt.Errorf("bad answer from the Puppet worker: %v", err)
	}
	if resp.Error != "" {
		return nil, fmt.Errorf("puppet: %s", resp.Error)
	}
	return &resp, nil
}

// Package pippet is the pippet resource: a Puppet resource (type, title,
// parameters) that the engine cannot run natively, applied by Puppet
// itself. puppet-graph emits it for every resource it cannot translate.
//
// Starting Puppet costs seconds, so all pippet resources of a process that
// name the same Puppet setup (puppet.conf, environment, module path) share
// one warm Puppet worker (worker.rb, run by ruby with Puppet's libraries):
// CheckApply sends the resource as one JSON line and reads one JSON answer.
// The worker loads types from that environment's modules (concat_file,
// file_line, cron, ...), serves puppet:///modules sources from them, and
// resolves Deferred values, as puppet apply does.
//
// Security: the worker runs with the engine's privileges (root) and loads
// Ruby code from the module path and settings from the puppet.conf the
// resource names. Whoever writes the graph can already run commands; but
// whoever can write into those directories could too, so a module
// directory or puppet.conf that a user other than root (or the engine's
// own user) owns, or that is group- or world-writable, is refused.
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
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

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
	// Params is a JSON object of the Puppet parameters (catalog data:
	// Puppet rich data such as Deferred values included).
	Params string `lang:"params" yaml:"params"`
	// Sensitive names the parameters Puppet must keep out of its logs.
	Sensitive []string `lang:"sensitive" yaml:"sensitive"`
	// Companions is a JSON array of resources ({"type", "title",
	// "params"}) Puppet needs in the same catalog, applied in noop mode:
	// the fragments of a concat_file, the files managed below a recursive
	// directory (so that Puppet neither overwrites nor purges them).
	Companions string `lang:"companions" yaml:"companions"`
	// ModulePath (colon-separated), Environment and PuppetConf set up the
	// Puppet that runs the resource; empty means Puppet's own settings.
	ModulePath  string `lang:"modulepath" yaml:"modulepath"`
	Environment string `lang:"environment" yaml:"environment"`
	PuppetConf  string `lang:"puppetconf" yaml:"puppetconf"`

	init *engine.Init
	w    *worker
	// ruby is the interpreter the worker runs in, looked up in PATH; ""
	// is "ruby".
	ruby string
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
	if _, err := obj.companions(); err != nil {
		return err
	}
	if obj.PuppetConf != "" && !filepath.IsAbs(obj.PuppetConf) {
		return fmt.Errorf("puppetconf %q must be absolute", obj.PuppetConf)
	}
	for _, d := range filepath.SplitList(obj.ModulePath) {
		if !filepath.IsAbs(d) {
			return fmt.Errorf("modulepath entry %q must be absolute", d)
		}
	}
	return nil
}

func (obj *PippetRes) companions() ([]companion, error) {
	if strings.TrimSpace(obj.Companions) == "" {
		return nil, nil
	}
	var c []companion
	if err := json.Unmarshal([]byte(obj.Companions), &c); err != nil {
		return nil, fmt.Errorf("companions: want a JSON array of resources: %v", err)
	}
	for i, r := range c {
		if r.Type == "" || r.Title == "" {
			return nil, fmt.Errorf("companions: resource %d needs a type and a title", i)
		}
	}
	return c, nil
}

// setup is the Puppet setup the resource's worker runs with.
func (obj *PippetRes) setup() setup {
	ruby := obj.ruby
	if ruby == "" {
		ruby = "ruby"
	}
	return setup{PuppetConf: obj.PuppetConf, Environment: obj.Environment, ModulePath: obj.ModulePath, Ruby: ruby}
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

// ManagedPaths returns the path a Puppet resource of a file type manages
// (its path parameter, or an absolute title), with everything below it
// for a recursive file, so that a purging directory keeps it.
func (obj *PippetRes) ManagedPaths() []engine.ManagedPath {
	m, err := obj.params()
	if err != nil {
		return nil
	}
	p, _ := m["path"].(string)
	if p == "" && (obj.Type == "file" || obj.Type == "concat_file") {
		p = obj.Title
	}
	if !filepath.IsAbs(p) {
		return nil
	}
	tree := obj.Type == "file" && m["recurse"] != nil && m["recurse"] != false && m["recurse"] != "false"
	return []engine.ManagedPath{{Path: filepath.Clean(p), Tree: tree}}
}

// Init starts (or joins) the shared Puppet worker.
func (obj *PippetRes) Init(init *engine.Init) error {
	obj.init = init
	w, err := acquire(obj.setup())
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
	with, err := obj.companions()
	if err != nil {
		return false, err
	}
	refresh := obj.init != nil && obj.init.Refresh()
	req := request{Type: obj.Type, Title: obj.Title, Params: params, Sensitive: obj.Sensitive,
		Companions: with, Noop: !apply, Refresh: refresh && apply}
	resp, err := obj.w.do(ctx, req)
	if err != nil {
		return false, err
	}
	if obj.init != nil {
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
	if obj.Type != res.Type || obj.Title != res.Title || obj.setup() != res.setup() ||
		obj.Companions != res.Companions || strings.Join(obj.Sensitive, ",") != strings.Join(res.Sensitive, ",") {
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
	Type       string         `json:"type"`
	Title      string         `json:"title"`
	Params     map[string]any `json:"params"`
	Sensitive  []string       `json:"sensitive,omitempty"`
	Companions []companion    `json:"companions,omitempty"`
	Noop       bool           `json:"noop"`
	Refresh    bool           `json:"refresh"`
}

// A companion is a resource applied in noop mode in the same catalog.
type companion struct {
	Type   string         `json:"type"`
	Title  string         `json:"title"`
	Params map[string]any `json:"params"`
}

type response struct {
	OutOfSync bool     `json:"out_of_sync"`
	Changed   bool     `json:"changed"`
	Failed    bool     `json:"failed"`
	Messages  []string `json:"messages"`
	Error     string   `json:"error"`
}

// A setup is how a worker's Puppet starts: its puppet.conf, environment
// and module path (empty: Puppet's own), and the interpreter it runs in.
type setup struct {
	PuppetConf  string `json:"puppetconf,omitempty"`
	Environment string `json:"environment,omitempty"`
	ModulePath  string `json:"modulepath,omitempty"`
	Ruby        string `json:"-"`
}

// A worker is the running Puppet process; mu serializes requests.
type worker struct {
	setup setup
	mu    sync.Mutex
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	users int
	dead  error
}

var (
	shared   = map[setup]*worker{}
	sharedMu sync.Mutex
)

// acquire returns the running worker of s, or starts one.
func acquire(s setup) (*worker, error) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if w := shared[s]; w != nil && w.dead == nil {
		w.users++
		return w, nil
	}
	if err := s.trusted(); err != nil {
		return nil, err
	}
	ruby, err := exec.LookPath(s.Ruby)
	if err != nil {
		return nil, fmt.Errorf("pippet needs Puppet (ruby and the puppet libraries): %v", err)
	}
	arg, _ := json.Marshal(s)
	cmd := exec.Command(ruby, "-e", workerScript, string(arg))
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
	w := &worker{setup: s, cmd: cmd, in: in, out: sc, users: 1}
	shared[s] = w
	return w, nil
}

// trusted refuses a puppet.conf or module directory that someone other
// than root or this process's user owns or may write: Puppet would run
// code from it with our privileges.
func (s setup) trusted() error {
	paths := filepath.SplitList(s.ModulePath)
	if s.PuppetConf != "" {
		paths = append(paths, s.PuppetConf)
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) && p != s.PuppetConf {
			continue // Puppet skips a missing module directory
		}
		if err != nil {
			return fmt.Errorf("pippet: %v", err)
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !ok {
			continue
		}
		if uid := int(sys.Uid); uid != 0 && uid != os.Geteuid() {
			return fmt.Errorf("pippet: %s belongs to uid %d: Puppet would run code from it as uid %d", p, uid, os.Geteuid())
		}
		if st.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("pippet: %s is writable by group or others (mode %04o): Puppet would run code from it", p, st.Mode().Perm())
		}
	}
	return nil
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
	if shared[w.setup] == w {
		delete(shared, w.setup)
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
	killed := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(killed)
		w.cmd.Process.Kill()
	})
	defer func() {
		if !stop() {
			<-killed
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

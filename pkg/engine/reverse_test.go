package engine_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("tsave", func() engine.Res { return &tsave{} })
}

// tsave is a reversible kind that keeps its reversal state as a file does:
// it sets state["save:NAME"] to Want and, with Meta:reverse, saves the
// value it replaced in VarDir(ReverseVarDir) before its first change; its
// reversal puts that value back. Its Watch reports sys.poke("save:NAME").
type tsave struct {
	traits.Base
	init    *engine.Init
	Want    string  `lang:"want"`
	Restore *string `lang:"restore"`
}

func (r *tsave) Default() engine.Res          { return &tsave{} }
func (r *tsave) Validate() error              { return nil }
func (r *tsave) Init(init *engine.Init) error { r.init = init; return nil }
func (r *tsave) Cleanup() error               { return nil }
func (r *tsave) key() string                  { return "save:" + r.Name() }
func (r *tsave) Cmp(o engine.Res) error {
	if x, ok := o.(*tsave); !ok || x.Want != r.Want || (x.Restore == nil) != (r.Restore == nil) {
		return errors.New("differs")
	}
	return nil
}

func (r *tsave) Watch(ctx context.Context) error {
	r.init.Running()
	for {
		select {
		case <-sys.trigger(r.key()):
			r.init.Event()
		case <-ctx.Done():
			return nil
		}
	}
}

func (r *tsave) origFile() (string, error) {
	d, err := r.init.VarDir(engine.ReverseVarDir)
	return filepath.Join(d, "orig"), err
}

func (r *tsave) CheckApply(ctx context.Context, apply bool) (bool, error) {
	want := r.Want
	if r.Restore != nil {
		want = *r.Restore
	}
	cur := sys.get(r.key())
	if cur == want {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	if r.MetaParams().Reverse {
		p, err := r.origFile()
		if err != nil {
			return false, err
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			if err := os.WriteFile(p, []byte(cur), 0o600); err != nil {
				return false, err
			}
		}
	}
	sys.set(r.key(), want)
	return false, nil
}

func (r *tsave) Reversed() (engine.Res, error) {
	p, err := r.origFile()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	s := string(b)
	return &tsave{Restore: &s}, err
}

// TestReversalStateNotReused checks that a reversal, once done, leaves the
// graph and takes its saved state along: a later edit stays, and the next
// reversal of the same resource restores what was there before its own
// first change, not a stale earlier state.
func TestReversalStateNotReused(t *testing.T) {
	prefix := t.TempDir()
	h := start(t, engine.Config{Prefix: prefix})
	sys.set("save:r", "original")
	h.load(doc(1, []string{"tsave:r want=A meta.reverse=true"}))
	h.converge(1)
	h.load(doc(2, []string{"a want=1"}))
	h.waitFor(func(st engine.Status) bool { return sys.get("save:r") == "original" && st.Total == 1 }, "the reversal done and gone")
	state := filepath.Join(prefix, "vardir", "tsave", "r", engine.ReverseVarDir)
	h.waitFor(func(engine.Status) bool {
		_, err := os.Stat(state)
		return errors.Is(err, fs.ErrNotExist)
	}, "the reversal state removed")

	// An edit after the reversal stays: nothing enforces the old state.
	sys.set("save:r", "edited")
	sys.poke("save:r")
	h.load(doc(3, []string{"a want=1", "tsave:r want=B meta.reverse=true"}))
	h.converge(3)
	h.load(doc(4, []string{"a want=1"}))
	h.waitFor(func(engine.Status) bool { return sys.get("save:r") != "B" }, "the second reversal")
	if got := sys.get("save:r"); got != "edited" {
		t.Fatalf("the second reversal restored %q, want the edit made before it\n%s", got, h.logs)
	}
}

// TestReversalStateForgottenWithoutReverse checks that a resource that
// stays in the graph without Meta:reverse drops its saved state.
func TestReversalStateForgottenWithoutReverse(t *testing.T) {
	prefix := t.TempDir()
	h := start(t, engine.Config{Prefix: prefix})
	sys.set("save:r", "original")
	h.load(doc(1, []string{"tsave:r want=A meta.reverse=true"}))
	h.converge(1)
	h.load(doc(2, []string{"tsave:r want=A"}))
	h.converge(2)
	sys.set("save:r", "edited")
	h.load(doc(3, []string{"tsave:r want=B meta.reverse=true"}))
	h.converge(3)
	h.load(doc(4, []string{"a want=1"}))
	h.waitFor(func(engine.Status) bool { return sys.get("save:r") != "B" }, "the reversal")
	if got := sys.get("save:r"); got != "edited" {
		t.Fatalf("the reversal restored %q, want the state before its resource's first change\n%s", got, h.logs)
	}
}

// savedReversalRun runs, in a new prefix that it returns, an engine that
// changes tsave:r with Meta:reverse, so that the prefix holds its saved
// reversal and its reversal state, and stops it.
func savedReversalRun(t *testing.T) string {
	prefix := t.TempDir()
	h := start(t, engine.Config{Prefix: prefix})
	sys.set("save:r", "original")
	h.load(doc(1, []string{"tsave:r want=A meta.reverse=true"}))
	h.converge(1)
	h.stop()
	return prefix
}

// TestNoopKeepsReversal checks that a reversal run with noop is not
// taken for done.
func TestNoopKeepsReversal(t *testing.T) {
	prefix := savedReversalRun(t)
	h2 := start(t, engine.Config{Prefix: prefix, Noop: true})
	sys.set("save:r", "A")
	h2.load(doc(1, []string{"a want=1"}))
	h2.converge(1)
	h2.stop()
	h3 := start(t, engine.Config{Prefix: prefix})
	sys.set("save:r", "A")
	h3.load(doc(1, []string{"a want=1"}))
	h3.waitFor(func(engine.Status) bool { return sys.get("save:r") == "original" }, "the reversal after a noop run")
}

// TestReversalStateForgottenAfterRestart checks that the state a previous
// run saved (the saved reversal and the ReverseVarDir) is removed when its
// resource comes back without Meta:reverse, while a resource that never
// had any state leaves the prefix untouched.
func TestReversalStateForgottenAfterRestart(t *testing.T) {
	prefix := savedReversalRun(t)
	state := filepath.Join(prefix, "vardir", "tsave", "r", engine.ReverseVarDir)
	saved, err := filepath.Glob(filepath.Join(prefix, "reverse", "*.json"))
	if err != nil || len(saved) != 1 {
		t.Fatalf("saved reversals after the first run: %v %v", saved, err)
	}
	if _, err := os.Stat(state); err != nil {
		t.Fatalf("the reversal state after the first run: %v", err)
	}

	h2 := start(t, engine.Config{Prefix: prefix})
	h2.load(doc(1, []string{"tsave:r want=A", "tsave:other want=B"}))
	h2.converge(1)
	for _, p := range []string{state, saved[0]} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(prefix, "vardir", "tsave", "other")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the resource without state got a state directory (%v)", err)
	}
}

// Package world holds the mcl modules "world" and "world/collect" (and,
// unregistered, the hidden builtin "_collect" of the collect statement):
// streaming
// functions over the shared world (pkg/world). Each one watches its part of
// the world and emits a new value whenever what it reads changes, and only
// then.
//
// The world reaches the functions through the call's environment: the
// compiler sets funcs.Env's World field (a worldapi.Handle, which each
// function asserts the pkg/world interface it needs on). Without a world,
// the functions fail with an error saying how to provide one.
//
// Collecting: the collect statement applies resources another host wrote,
// so it takes only what it selected. pkg/world's ResCollect refuses an
// exported value that names another kind or name than its key, or that
// breaks its kind's graph.CollectRules (a parameter naming another target
// than the name, a parameter only the collecting host may set, a kind that
// is never collected); Collect drops each refused resource, and each one
// from a host not in funcs.Env.CollectFrom (mcl-compile --collect-from),
// logs it once with the exporting host and the key, and goes on with the
// rest. Whatever the rules leave to the exporter (a file's content and
// mode, an exec's command) is trusted: the statement's own fields override
// the exporter's, so a program pins there what it must decide itself. The
// exporter is the host named in the key; that it really wrote the key is
// the world's authorization to ensure (each host writes only under its own
// name), which CollectFrom relies on.
package world

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
	pw "github.com/mgmtpipe/mgmt/pkg/world"
	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

const collectRow = "struct{name str; host str; data str}"

func init() {
	funcs.RegisterFunc(&funcs.Func{Module: "world", Name: "getval",
		Sigs: sigs("func(key str) struct{value str; exists bool}"), Stream: withWorld(streamGetval), Doc: "The value of a key of the world (written by a kv resource on any host), and whether it exists, following changes.", Example: `world.getval("release")`})
	funcs.RegisterFunc(&funcs.Func{Module: "world", Name: "kvlookup",
		Sigs: sigs("func(namespace str) map{str: str}"), Stream: withWorld(streamKVLookup), Doc: "Every host's entry of a namespace of the world (kv resources with mapped), by host name, following changes.", Example: `world.kvlookup("role")`})
	funcs.RegisterFunc(&funcs.Func{Module: "world", Name: "schedule",
		Sigs: sigs("func(namespace str) []str"), Stream: withWorld(streamSchedule), Doc: "The hosts the world's scheduler chose for a namespace (schedule resources volunteer), following changes.", Example: `world.schedule("leader")`})
	funcs.RegisterFunc(&funcs.Func{Module: "world/collect", Name: "res",
		Sigs: sigs("func(kind str) []struct{name str; host str}"), Stream: withWorld(streamCollectRes), Doc: "The name and host of each resource of a kind exported to this host, following changes.", Example: `collect.res("file")`})
}

// collectSigs are the signatures of _collect: one name, a list of names
// (from any host), or a list of (name, host) pairs; the last is the one
// an otherwise ambiguous call (an empty list) takes.
var collectSigs = sigs("func(kind str, name str) []"+collectRow, "func(kind str, names []str) []"+collectRow,
	"func(kind str, names []struct{name str; host str}) []"+collectRow)

// CollectBuiltin is the hidden builtin "_collect" behind the collect
// statement, for the compiler to register (or call) when it implements the
// statement: the exported resources of a kind, filtered by one name, a
// list of names, or a list of struct{name str; host str} pairs (each name
// only from that host), with data holding each resource as a
// graph-document JSON object (the resource with its parameters and
// metaparameters, without Meta:export).
var CollectBuiltin = &funcs.Func{Module: "", Name: "_collect", Doc: "exported resources of a kind, for the collect statement",
	Sigs: collectSigs, Infer: inferCollect, Stream: withWorld(streamCollect)}

func inferCollect(ic *funcs.InferCtx) error {
	err := funcs.InferSigs(collectSigs)(ic)
	pairs := collectSigs[len(collectSigs)-1]
	if err != nil && err != funcs.ErrDefer && ic.Final && types.TryUnify(pairs.Copy(), ic.Sig()) {
		return ic.UnifySig(pairs)
	}
	return err
}

func sigs(ss ...string) []*types.Type {
	out := make([]*types.Type, len(ss))
	for i, s := range ss {
		t, err := types.Parse(s)
		if err != nil {
			panic(fmt.Sprintf("world funcs: %q: %v", s, err))
		}
		out[i] = t
	}
	return out
}

// errNoWorld is the error of a world function run without a world.
var errNoWorld = errors.New("this function needs the world: give --seeds, or run where the tool starts its embedded one")

// WorldOf returns the world of env, nil when it has none.
func WorldOf(env *funcs.Env) worldapi.Handle {
	if env == nil {
		return nil
	}
	return env.World
}

// A worldStream is a StreamImpl that also gets the world.
type worldStream func(ctx context.Context, w worldapi.Handle, c *funcs.Call, emit func(values.Value)) error

func withWorld(s worldStream) funcs.StreamImpl {
	return func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
		w := WorldOf(c.Env)
		if w == nil {
			return errNoWorld
		}
		return s(ctx, w, c, emit)
	}
}

// need asserts the interface T on w.
func need[T any](w worldapi.Handle, name string) (T, error) {
	t, ok := w.(T)
	if !ok {
		return t, fmt.Errorf("the world given does not provide %s", name)
	}
	return t, nil
}

// follow reads and emits on every notification of the watch, skipping
// values equal to the last one emitted, until ctx is done. A slow or
// unreachable world stops no program: a watch that cannot be opened, or a
// read that fails, for a transient reason (pw.Transient) is tried again
// with backoff, logged through logf as what, while the last value stays
// in force.
func follow(ctx context.Context, logf func(string, ...any), what string, watch func(context.Context) (<-chan error, error),
	read func(context.Context) (values.Value, error), emit func(values.Value)) error {
	var ch <-chan error
	err := pw.Retry(ctx, logf, what, func(ctx context.Context) error {
		var err error
		ch, err = watch(ctx)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	var last values.Value
	for {
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-ch:
			if !ok {
				return nil
			}
			// A broken watch is re-established by the world; read
			// again either way, so no change is missed.
			var v values.Value
			err := pw.Retry(ctx, logf, what, func(ctx context.Context) error {
				var err error
				v, err = read(ctx)
				return err
			})
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			if last == nil || !values.Equal(last, v) {
				last = v
				emit(v)
			}
		}
	}
}

// logfOf returns the log function of a call's environment, or nil.
func logfOf(c *funcs.Call) func(string, ...any) {
	if c.Env == nil {
		return nil
	}
	return c.Env.Logf
}

func strArg(c *funcs.Call, i int) string {
	s, _ := c.Args[i].(values.Str)
	return string(s)
}

func streamGetval(ctx context.Context, w worldapi.Handle, c *funcs.Call, emit func(values.Value)) error {
	sw, err := need[pw.StrWorld](w, "strings")
	if err != nil {
		return err
	}
	return Getval(ctx, sw, strArg(c, 0), c.Out(), logfOf(c), emit)
}

// Getval streams struct{value str; exists bool} values of key. logf, when
// not nil, reports a world that does not answer (see follow).
func Getval(ctx context.Context, w pw.StrWorld, key string, out *types.Type, logf func(string, ...any), emit func(values.Value)) error {
	watch := func(ctx context.Context) (<-chan error, error) { return w.StrWatch(ctx, key) }
	return follow(ctx, logf, "world.getval("+strconv.Quote(key)+")", watch, func(ctx context.Context) (values.Value, error) {
		v, ok, err := w.StrGet(ctx, key)
		if err != nil {
			return nil, err
		}
		return values.FromGo(map[string]any{"value": v, "exists": ok}, out)
	}, emit)
}

func streamKVLookup(ctx context.Context, w worldapi.Handle, c *funcs.Call, emit func(values.Value)) error {
	mw, err := need[pw.StrMapWorld](w, "per-host strings")
	if err != nil {
		return err
	}
	return KVLookup(ctx, mw, strArg(c, 0), c.Out(), logfOf(c), emit)
}

// KVLookup streams the map{hostname: value} of namespace. logf is as for
// Getval.
func KVLookup(ctx context.Context, w pw.StrMapWorld, namespace string, out *types.Type, logf func(string, ...any), emit func(values.Value)) error {
	watch := func(ctx context.Context) (<-chan error, error) { return w.StrMapWatch(ctx, namespace) }
	return follow(ctx, logf, "world.kvlookup("+strconv.Quote(namespace)+")", watch, func(ctx context.Context) (values.Value, error) {
		m, err := w.StrMapGet(ctx, namespace)
		if err != nil {
			return nil, err
		}
		return values.FromGo(m, out)
	}, emit)
}

func streamSchedule(ctx context.Context, w worldapi.Handle, c *funcs.Call, emit func(values.Value)) error {
	sw, err := need[pw.SchedulerWorld](w, "the scheduler")
	if err != nil {
		return err
	}
	return Schedule(ctx, sw, strArg(c, 0), c.Out(), logfOf(c), emit)
}

// Schedule streams the hosts chosen for namespace. logf is as for Getval.
func Schedule(ctx context.Context, w pw.SchedulerWorld, namespace string, out *types.Type, logf func(string, ...any), emit func(values.Value)) error {
	watch := func(ctx context.Context) (<-chan error, error) { return w.ScheduleWatch(ctx, namespace) }
	return follow(ctx, logf, "world.schedule("+strconv.Quote(namespace)+")", watch, func(ctx context.Context) (values.Value, error) {
		hosts, err := w.Schedule(ctx, namespace)
		if err != nil {
			return nil, err
		}
		return values.FromGo(hosts, out)
	}, emit)
}

func streamCollectRes(ctx context.Context, w worldapi.Handle, c *funcs.Call, emit func(values.Value)) error {
	rw, err := need[pw.ResWorld](w, "exported resources")
	if err != nil {
		return err
	}
	return Collect(ctx, rw, strArg(c, 0), nil, false, collectOptions(c.Env), c.Out(), emit)
}

func streamCollect(ctx context.Context, w worldapi.Handle, c *funcs.Call, emit func(values.Value)) error {
	rw, err := need[pw.ResWorld](w, "exported resources")
	if err != nil {
		return err
	}
	sel, err := selection(c.Args[1])
	if err != nil {
		return err
	}
	return Collect(ctx, rw, strArg(c, 0), sel, true, collectOptions(c.Env), c.Out(), emit)
}

// A Selection is what a collect statement names: entries whose name is in
// Names (from any host) or whose (name, host) is in Pairs.
type Selection struct {
	Names map[string]bool
	Pairs map[[2]string]bool
}

func (s *Selection) has(name, host string) bool {
	return s.Names[name] || s.Pairs[[2]string{name, host}]
}

// selection reads the name argument of _collect: a str, a []str, or a
// []struct{name str; host str} whose hosts are real host names.
func selection(arg values.Value) (*Selection, error) {
	sel := &Selection{Names: map[string]bool{}, Pairs: map[[2]string]bool{}}
	switch a := arg.(type) {
	case values.Str:
		sel.Names[string(a)] = true
	case *values.List:
		for _, v := range a.V {
			switch e := v.(type) {
			case values.Str:
				sel.Names[string(e)] = true
			case *values.Struct:
				n, _ := e.Lookup("name")
				h, _ := e.Lookup("host")
				name, host := string(n.(values.Str)), string(h.(values.Str))
				if host == "" || host == pw.ExportAll {
					return nil, fmt.Errorf("collect: host %q of %q: want a host name", host, name)
				}
				sel.Pairs[[2]string{name, host}] = true
			}
		}
	}
	return sel, nil
}

// CollectOptions are the collecting host's choices about exported
// resources.
type CollectOptions struct {
	// From lists the hosts whose exports are taken; nil takes every
	// host of the world.
	From []string
	// Logf reports each exported resource that was selected but refused
	// (see pw.Exported's Err) or ignored (its host is not in From),
	// naming the exporting host and the key, and a world that does not
	// answer (see follow); nil reports nothing.
	Logf func(format string, args ...any)
}

func collectOptions(env *funcs.Env) CollectOptions {
	if env == nil {
		return CollectOptions{}
	}
	return CollectOptions{From: env.CollectFrom, Logf: env.Logf}
}

// Collect streams the resources of kind exported to this host, as a list
// of struct{name; host} (with data, the resource as a graph-document JSON
// object). A non-nil sel keeps only what it names. The world refuses an
// exported resource that does not agree with its key or breaks its kind's
// collect rules (pw.Client.ResCollect); Collect drops it, and those of
// hosts not in opts.From, and logs each once per stream (again only if the
// reason changes), so the rest of the collection still applies.
func Collect(ctx context.Context, w pw.ResWorld, kind string, sel *Selection, data bool, opts CollectOptions, out *types.Type, emit func(values.Value)) error {
	if kind == "" {
		return fmt.Errorf("empty kind")
	}
	logged := map[string]string{} // key -> the last reason logged
	var seen map[string]bool      // keys of the current read
	drop := func(e *pw.Exported) bool {
		seen[e.Key] = true
		why := ""
		switch {
		case opts.From != nil && !slices.Contains(opts.From, e.From):
			why = "ignored " + e.Res.Ref().String() + " exported by host " + e.From + " (key " + e.Key + "): host not in the collect-from list"
		case e.Err != nil:
			why = "refused " + e.Res.Ref().String() + " exported by host " + e.From + " (key " + e.Key + "): " + e.Err.Error()
		}
		if why != "" && logged[e.Key] != why && opts.Logf != nil {
			opts.Logf("collect: %s", why)
		}
		if why != "" {
			logged[e.Key] = why
		}
		return why != ""
	}
	watch := func(ctx context.Context) (<-chan error, error) { return w.ResWatch(ctx), nil }
	return follow(ctx, opts.Logf, "world: collect "+kind, watch, func(ctx context.Context) (values.Value, error) {
		es, err := w.ResCollect(ctx, kind)
		if err != nil {
			return nil, err
		}
		rows := []any{}
		seen = map[string]bool{}
		for _, e := range es {
			if (sel != nil && !sel.has(e.Res.Name, e.From)) || drop(e) {
				continue
			}
			row := map[string]any{"name": e.Res.Name, "host": e.From}
			if data {
				b, err := json.Marshal(e.Res)
				if err != nil {
					return nil, err
				}
				row["data"] = string(b)
			}
			rows = append(rows, row)
		}
		// A key that went away is reported again if it comes back.
		maps.DeleteFunc(logged, func(k, _ string) bool { return !seen[k] })
		return values.FromGo(rows, out)
	}, emit)
}

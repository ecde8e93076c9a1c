package funcs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

// A Call is one call of a built-in function, as its implementation sees it.
type Call struct {
	// Type is the resolved signature at this call site, a func type whose
	// parameters are the argument types and whose Out is the result type.
	Type *types.Type
	// Args are the argument values, one per parameter of Type.
	Args []values.Value
	// Env is the environment of the module the call is in.
	Env *Env
	// Updates, for streaming functions with Follow set, delivers the new
	// arguments of the call site (the latest only) while the stream runs.
	Updates <-chan []values.Value
	// EmitErr, for a streaming function, makes a catchable error (see
	// Catchablef) the call's current value in place of one: a `<|>` around
	// the call takes its right side until the next emit, and the stream
	// goes on (os.readfile while its file is missing). Any other error
	// fails the program as a returned one does. It is nil when the caller
	// is not the engine: a function then returns the error instead.
	EmitErr func(err error)
}

// Out returns the result type of the call.
func (c *Call) Out() *types.Type { return c.Type.Out }

// Env is what functions may know about the world around the program. The
// compiler fills it per module; tests may build their own.
type Env struct {
	// ModuleDir is the absolute directory of the module the call is in
	// (deploy.readfile etc. resolve "/x" against it).
	ModuleDir string
	// DeployRoot is the absolute directory of the top-level program.
	DeployRoot string
	// Prefix is the state directory (value store, vardir, module cache).
	Prefix string
	// Hostname is the host's name as the program sees it.
	Hostname string
	// Getenv reads an environment variable.
	Getenv func(string) (string, bool)
	// Args are extra program arguments (os.args).
	Args []string
	// Logf writes a debug or warning line to the tool's log.
	Logf func(format string, args ...any)
	// World is the shared world for the world functions (each asserts
	// the pkg/world interface it needs), nil when the tool has none.
	World worldapi.Handle
	// CollectFrom lists the hosts whose exported resources the collect
	// statement (and world/collect.res) take; nil takes every host.
	CollectFrom []string

	// Root is the directory under which the functions that read the
	// host's own files (/etc, /proc, /sys) find them: "/" (or "") is this
	// host. Read paths through HostPath.
	Root string
	// Poll is how often a function that cannot be told of a change
	// (os.modinfo_loaded reading /proc/modules) reads again; 0 is the
	// function's own default.
	Poll time.Duration
	// SystemBus is the D-Bus address of the system bus for the functions
	// that ask its daemons (sys/fwupd); "" is the system bus the
	// DBUS_SYSTEM_BUS_ADDRESS variable or the standard socket names.
	SystemBus string
}

// HostPath returns the host file p (an absolute path such as
// "/etc/passwd") under the environment's Root. A nil Env is this host.
func (e *Env) HostPath(p string) string {
	if e == nil || e.Root == "" || e.Root == "/" {
		return filepath.Clean(p)
	}
	return filepath.Join(e.Root, p)
}

// PollEvery returns Poll, or def when Poll is not set (or e is nil).
func (e *Env) PollEvery(def time.Duration) time.Duration {
	if e == nil || e.Poll <= 0 {
		return def
	}
	return e.Poll
}

// Impl computes the value of one call.
type Impl func(ctx context.Context, c *Call) (values.Value, error)

// StreamImpl runs a streaming function: it calls emit each time it has a
// new value, until ctx is done (return nil or ctx.Err()) or it has nothing
// more to say (return nil: the stream is closed and its last value stays).
// A returned error fails the program (or is caught by <|> if catchable).
// The engine cancels ctx and starts a new stream when the arguments change.
type StreamImpl func(ctx context.Context, c *Call, emit func(values.Value)) error

// A Func describes one built-in function. Exactly one of Impl, Build and
// Stream is normally set; Sigs and/or Infer say how it types.
type Func struct {
	Module string // "" for top-level builtins, "fmt", "golang/strings", ...
	Name   string

	// Sigs are the fixed signatures (func types, may hold variables that
	// are instantiated fresh per call). With several, the call site must
	// match exactly one after unification.
	Sigs []*types.Type
	// Infer, if set, types a call site (polymorphic functions). It runs
	// during unification instead of Sigs, possibly several times.
	Infer func(ic *InferCtx) error

	// Impl computes the value from the arguments.
	Impl Impl
	// Build, if set, returns the implementation for a resolved signature;
	// it is called once per call site after unification.
	Build func(sig *types.Type) (Impl, error)
	// Stream makes the function streaming (see StreamImpl).
	Stream StreamImpl
	// Follow keeps a streaming call running when its arguments change:
	// they arrive on Call.Updates instead of restarting the stream.
	Follow bool

	// Pure means same arguments, same result, no effects.
	Pure bool
	// Doc is the one-line description the reference shows: a sentence
	// (docs/reference/functions.md, mcl-compile --list-functions).
	Doc string
	// Example is a call of the function, an mcl expression that compiles
	// in a program importing its module (a test type-checks it).
	Example string
	// Shape is the signature the reference shows for a function typed by
	// Infer (it has no fixed Sigs), in mcl type syntax with "..." for
	// variadic arguments.
	Shape string
}

// An Option adds documentation to a function registered by Register,
// RegisterMulti, RegisterPoly or RegisterStream.
type Option func(*Func)

// Doc sets the function's one-line description (a sentence) and an example
// call (an mcl expression).
func Doc(text, example string) Option {
	return func(f *Func) { f.Doc, f.Example = text, example }
}

// Shape sets the signature the reference shows for a polymorphic function
// typed by Infer.
func Shape(sig string) Option {
	return func(f *Func) { f.Shape = sig }
}

func apply(f *Func, opts []Option) *Func {
	for _, o := range opts {
		o(f)
	}
	return f
}

// FullName returns "module.name" or "name" for builtins.
func (f *Func) FullName() string {
	if f.Module == "" {
		return f.Name
	}
	return f.Module + "." + f.Name
}

var (
	mu       sync.RWMutex
	registry = map[string]*Func{}
	modules  = map[string]bool{}
	vars     = map[string]values.Value{}
)

// RegisterVar adds a constant variable to a core module: after
// `import "os"`, $os.family_debian. It panics on a duplicate or a nil
// value, as these are programming errors found at start-up.
func RegisterVar(module, name string, v values.Value) {
	mu.Lock()
	defer mu.Unlock()
	key := module + "." + name
	if _, dup := vars[key]; dup || module == "" || v == nil {
		panic(fmt.Sprintf("funcs: variable %s registered twice, without a module or without a value", key))
	}
	vars[key] = v
	modules[module] = true
}

// LookupVar finds a variable of a core module.
func LookupVar(module, name string) (values.Value, bool) {
	mu.RLock()
	defer mu.RUnlock()
	v, ok := vars[module+"."+name]
	return v, ok
}

// ModuleVars returns the names of the variables of module, sorted.
func ModuleVars(module string) []string {
	mu.RLock()
	defer mu.RUnlock()
	var out []string
	for k := range vars {
		if i := strings.LastIndexByte(k, '.'); k[:i] == module {
			out = append(out, k[i+1:])
		}
	}
	sort.Strings(out)
	return out
}

// RegisterFunc adds f to the registry. It panics on a duplicate, as that is
// a programming error found at start-up.
func RegisterFunc(f *Func) {
	mu.Lock()
	defer mu.Unlock()
	key := f.FullName()
	if _, dup := registry[key]; dup {
		panic(fmt.Sprintf("funcs: %s registered twice", key))
	}
	if f.Impl == nil && f.Build == nil && f.Stream == nil {
		panic(fmt.Sprintf("funcs: %s has no implementation", key))
	}
	if len(f.Sigs) == 0 && f.Infer == nil {
		panic(fmt.Sprintf("funcs: %s has neither signature nor Infer", key))
	}
	registry[key] = f
	if f.Module != "" {
		modules[f.Module] = true
	}
}

func parseSigs(module, name string, sigs []string) []*types.Type {
	out := make([]*types.Type, len(sigs))
	for i, s := range sigs {
		t, err := types.Parse(s)
		if err != nil {
			panic(fmt.Sprintf("funcs: %s.%s: %v", module, name, err))
		}
		if t.Kind != types.KindFunc {
			panic(fmt.Sprintf("funcs: %s.%s: signature %q is not a func type", module, name, s))
		}
		out[i] = t
	}
	return out
}

// Register adds a simple function with one fixed signature, written in mcl
// type syntax (e.g. "func(s str) str"). fn gets the argument values.
func Register(module, name, sig string, fn func(ctx context.Context, args []values.Value) (values.Value, error), opts ...Option) {
	RegisterFunc(apply(&Func{
		Module: module, Name: name, Pure: true,
		Sigs: parseSigs(module, name, []string{sig}),
		Impl: func(ctx context.Context, c *Call) (values.Value, error) { return fn(ctx, c.Args) },
	}, opts))
}

// RegisterMulti adds a function with several fixed signatures; fn gets the
// whole Call, so it can look at c.Type to know which one was chosen.
func RegisterMulti(module, name string, sigs []string, fn Impl, opts ...Option) {
	RegisterFunc(apply(&Func{Module: module, Name: name, Pure: true, Sigs: parseSigs(module, name, sigs), Impl: fn}, opts))
}

// RegisterPoly adds a polymorphic function: infer types each call site (see
// InferCtx) and build returns the implementation for the resolved
// signature.
func RegisterPoly(module, name string, infer func(*InferCtx) error, build func(sig *types.Type) (Impl, error), opts ...Option) {
	RegisterFunc(apply(&Func{Module: module, Name: name, Pure: true, Infer: infer, Build: build}, opts))
}

// RegisterStream adds a streaming function with a fixed signature.
func RegisterStream(module, name, sig string, s StreamImpl, opts ...Option) {
	RegisterFunc(apply(&Func{Module: module, Name: name, Sigs: parseSigs(module, name, []string{sig}), Stream: s}, opts))
}

// Lookup finds a function by module ("" for builtins) and name.
func Lookup(module, name string) (*Func, bool) {
	mu.RLock()
	defer mu.RUnlock()
	key := name
	if module != "" {
		key = module + "." + name
	}
	f, ok := registry[key]
	return f, ok
}

// IsModule reports whether module is a core module with functions or
// variables.
func IsModule(module string) bool {
	mu.RLock()
	defer mu.RUnlock()
	return modules[module]
}

// ModuleFuncs returns the names of the functions in module, sorted.
func ModuleFuncs(module string) []string {
	mu.RLock()
	defer mu.RUnlock()
	var out []string
	prefix := module + "."
	for k, f := range registry {
		if f.Module == module && strings.HasPrefix(k, prefix) {
			out = append(out, f.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Modules returns the names of all core modules, sorted.
func Modules() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(modules))
	for m := range modules {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// ErrCatchable marks errors that `<|>` may catch (sentinel errors: missing
// list index or map key, division by zero, bad input to parsers, ...).
var ErrCatchable = errors.New("catchable error")

type catchable struct{ msg string }

func (e *catchable) Error() string        { return e.msg }
func (e *catchable) Is(target error) bool { return target == ErrCatchable }

// Catchablef returns a catchable error with a formatted message.
func Catchablef(format string, args ...any) error {
	return &catchable{msg: fmt.Sprintf(format, args...)}
}

// IsCatchable reports whether err may be caught by `<|>`.
func IsCatchable(err error) bool { return errors.Is(err, ErrCatchable) }

type keyCtx struct{}

// WithKey returns ctx extended with one more element of the instance key.
// The evaluator identifies each streaming call by its key, so a function
// that calls a function value several times (iter.map, once per element)
// must give each call its own key: f.Call(funcs.WithKey(ctx, i), ...).
func WithKey(ctx context.Context, elem any) context.Context {
	return context.WithValue(ctx, keyCtx{}, JoinKey(Key(ctx), fmt.Sprint(elem)))
}

// maxKeyLen bounds the length of an instance key: a longer key is replaced
// by a digest of it, so that keys stay short however deep the calls go
// (each level of calls adds an element).
const maxKeyLen = 256

// JoinKey returns the instance key of elem below the key parent. Distinct
// paths give distinct keys (a digest stands for a long one).
func JoinKey(parent, elem string) string { return capKey(parent + "/" + elem) }

// JoinKeyID is JoinKey(parent, tag+strconv.Itoa(id)), built in one
// allocation.
func JoinKeyID(parent, tag string, id int) string {
	var buf [20]byte
	return capKey(parent + "/" + tag + string(strconv.AppendInt(buf[:0], int64(id), 10)))
}

// capKey replaces a key longer than maxKeyLen by its digest.
func capKey(k string) string {
	if len(k) > maxKeyLen {
		sum := sha256.Sum256([]byte(k))
		k = "#" + hex.EncodeToString(sum[:])
	}
	return k
}

// Key returns the instance key carried by ctx ("" at the top).
func Key(ctx context.Context) string {
	s, _ := ctx.Value(keyCtx{}).(string)
	return s
}

// SetKey returns ctx carrying exactly the instance key key.
func SetKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, keyCtx{}, key)
}

// All returns every registered function, sorted by full name.
func All() []*Func {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*Func, 0, len(registry))
	for _, f := range registry {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].FullName() < out[j].FullName() })
	return out
}

// Sigs parses signatures written in Go source (panics on error).
func Sigs(s ...string) []*types.Type {
	return parseSigs("", "", s)
}

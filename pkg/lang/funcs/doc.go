// Package funcs is the registry of built-in mcl functions and the API a
// function implements.
//
// # How functions run
//
// The compiler type-checks each call site (unification), then evaluates the
// program into a graph each time a streaming function emits a new value.
// Ordinary functions are called during that evaluation with the argument
// values (an Impl); streaming functions run as a goroutine per call site
// (a StreamImpl) that emits values over time. A call site is identified by
// its position plus the instance key in its context (see WithKey), so the
// same stream keeps running across evaluations as long as its arguments do
// not change; when they change it is cancelled and restarted.
//
// # Adding a function
//
// The core modules the conformance corpus needs live in
// pkg/lang/funcs/core<module> (builtin for the top-level ones) and are
// imported by pkg/lang/funcs/all; the rest of the library lives in
// pkg/lang/funcs/<module> and is imported by pkg/lang/funcs/library.
// Register from init; a package adding to a core module imports the core
// package first and skips names it already has (registering a name twice
// panics).
//
// (a) A function with one fixed signature, in mcl type syntax:
//
//	funcs.Register("strings", "to_upper", "func(s str) str",
//		func(ctx context.Context, args []values.Value) (values.Value, error) {
//			return values.Str(strings.ToUpper(string(args[0].(values.Str)))), nil
//		})
//
// Several fixed signatures: RegisterMulti; the Impl sees c.Type to know
// which one the call site chose (math.fortytwo returns int or float).
//
// (b) A polymorphic function gives an Infer callback that looks at the
// call site (argument types, constant arguments, result type), unifies what
// it can and returns nil, ErrDefer to be called again later, or an error;
// and a Build that returns the implementation for the resolved signature.
// fmt.printf in corefmt is the example.
//
// (c) A streaming function emits values through a callback until its
// context is cancelled (datetime.now in coredatetime). When its arguments
// change, the engine restarts it, unless Func.Follow is set: then the new
// arguments arrive on Call.Updates (history in builtin):
//
//	funcs.RegisterStream("datetime", "now", "func() int", func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error { ... })
//
// (d) Functions taking function values (iter.map, iter.filter, ...) call
// them with f.(*values.Func).Call(funcs.WithKey(ctx, i), args...), giving
// each call its own key so streams inside the called lambda stay distinct.
// They live in coreiter.
//
// (e) A module may also hold constant variables, registered with
// RegisterVar and read as $module.name after an import ($os.family_debian).
// `import "fmt" as *` makes a core module's functions and variables
// reachable without the prefix; names the program defines win over them.
//
// Errors: return Catchablef(...) for errors `<|>` may catch (sentinels:
// missing key or index, division by zero, bad input to a parser); any other
// error is fatal for the program. Values: pkg/lang/values; build lists and
// maps with their concrete type (c.Type.Out for the result).
package funcs

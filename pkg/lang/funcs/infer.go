package funcs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// ErrDefer is returned by an Infer callback that cannot decide yet: the
// solver calls it again once other constraints have made progress.
var ErrDefer = errors.New("not enough type information yet")

// InferCtx is what an Infer callback sees of one call site.
type InferCtx struct {
	// Args are the argument types (may contain variables).
	Args []*types.Type
	// Consts holds the value of each argument that is a constant at the
	// call site (a literal), nil for the others.
	Consts []values.Value
	// Out is the result type (may contain variables).
	Out *types.Type
	// Final is true on the last call: nothing else will make progress, so
	// the callback must decide or return an error saying which annotation
	// would resolve the ambiguity.
	Final bool
}

// Unify unifies a and b, for use inside Infer.
func (ic *InferCtx) Unify(a, b *types.Type) error { return types.Unify(a, b) }

// Sig returns the call site's signature built from Args and Out.
func (ic *InferCtx) Sig() *types.Type { return types.NewFuncOf(ic.Out, ic.Args...) }

// UnifySig unifies the call site with the signature sig (instantiated fresh).
func (ic *InferCtx) UnifySig(sig *types.Type) error {
	sig = sig.Copy()
	if len(sig.Fields) != len(ic.Args) {
		return fmt.Errorf("got %d args, want %d", len(ic.Args), len(sig.Fields))
	}
	for i, a := range ic.Args {
		if !types.TryUnify(sig.Fields[i].Type, a) {
			s := types.StringAll(a.Resolve(), sig.Fields[i].Type.Resolve())
			name := ""
			if n := sig.Fields[i].Name; n != "" {
				name = " (" + n + ")"
			}
			return fmt.Errorf("argument %d%s: got %s, want %s", i+1, name, s[0], s[1])
		}
		if err := types.Unify(sig.Fields[i].Type, a); err != nil {
			return fmt.Errorf("argument %d: %v", i+1, err)
		}
	}
	if !types.TryUnify(sig.Out, ic.Out) {
		s := types.StringAll(sig.Out.Resolve(), ic.Out.Resolve())
		return fmt.Errorf("it returns %s, but %s is needed here", s[0], s[1])
	}
	return types.Unify(sig.Out, ic.Out)
}

// InferSigs is the Infer used for functions with fixed signatures: the
// call site must match exactly one of sigs.
func InferSigs(sigs []*types.Type) func(*InferCtx) error {
	return func(ic *InferCtx) error {
		site := ic.Sig()
		var ok []*types.Type
		for _, s := range sigs {
			if len(s.Fields) == len(ic.Args) && types.TryUnify(s.Copy(), site) {
				ok = append(ok, s)
			}
		}
		switch {
		case len(ok) == 1:
			return ic.UnifySig(ok[0])
		case len(ok) == 0:
			if len(sigs) == 1 {
				return ic.UnifySig(sigs[0])
			}
			return fmt.Errorf("no signature matches %s (have %s)", site, sigList(sigs))
		case !ic.Final:
			return ErrDefer
		}
		return fmt.Errorf("ambiguous call: %s could be %s; add a type annotation", site, sigList(ok))
	}
}

func sigList(sigs []*types.Type) string {
	parts := make([]string, len(sigs))
	for i, s := range sigs {
		parts[i] = s.String()
	}
	return strings.Join(parts, " or ")
}

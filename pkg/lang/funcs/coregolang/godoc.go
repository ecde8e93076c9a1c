package coregolang

import (
	"path"
	"reflect"
	"runtime"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
)

// GoDoc documents a wrapper of the Go function fn: it does what fn does,
// whose documentation is the reference, and its example calls it with a
// sample argument of each parameter type.
func GoDoc(fn any) funcs.Option {
	return func(f *funcs.Func) {
		f.Doc = "As Go's " + runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name() + "."
		var args []string
		if len(f.Sigs) > 0 {
			for _, p := range f.Sigs[0].Fields {
				args = append(args, sample(p.Type))
			}
		}
		f.Example = path.Base(f.Module) + "." + f.Name + "(" + strings.Join(args, ", ") + ")"
	}
}

// sample returns a literal of t, for examples.
func sample(t *types.Type) string {
	switch t.Kind {
	case types.KindStr:
		return `"a"`
	case types.KindInt:
		return "1"
	case types.KindFloat:
		return "1.5"
	case types.KindBool:
		return "true"
	case types.KindList:
		return "[" + sample(t.Elem) + "]"
	}
	return `"a"`
}

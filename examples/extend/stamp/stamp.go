// Package stamp adds to mgmt a resource kind, acme:stamp, and three
// functions of the mcl module "acme". A program that imports it (for its
// init) and calls the tools' Run functions gets tools that know them.
package stamp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// Kind is the name of the resource kind.
const Kind = "acme:stamp"

// Res keeps a file (its name, an absolute path) holding exactly one line:
// the stamp's text. It creates the file with mode 0644 if it is missing.
type Res struct {
	traits.Base

	init *engine.Init

	Text string `lang:"text" yaml:"text"`
}

// Default returns the resource with its defaults.
func (r *Res) Default() engine.Res { return &Res{Text: "stamped"} }

// Validate refuses a relative path and a text of several lines.
func (r *Res) Validate() error {
	if !filepath.IsAbs(r.Name()) {
		return fmt.Errorf("the name %q is not an absolute path", r.Name())
	}
	if strings.ContainsAny(r.Text, "\r\n") {
		return fmt.Errorf("the text has more than one line")
	}
	return nil
}

// Init keeps what the engine gives the resource.
func (r *Res) Init(init *engine.Init) error { r.init = init; return nil }

// Cleanup has nothing to release.
func (r *Res) Cleanup() error { return nil }

// Watch reports no events: the engine's periodic recheck (mgmt-apply
// --recheck) repairs a changed file.
func (r *Res) Watch(ctx context.Context) error {
	r.init.Running()
	<-ctx.Done()
	return nil
}

// CheckApply writes the line when the file differs.
func (r *Res) CheckApply(ctx context.Context, apply bool) (bool, error) {
	want := []byte(r.Text + "\n")
	got, err := os.ReadFile(r.Name())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if err == nil && bytes.Equal(got, want) {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	return false, os.WriteFile(r.Name(), want, 0o644)
}

// Cmp tells whether o is the same stamp.
func (r *Res) Cmp(o engine.Res) error {
	x, ok := o.(*Res)
	if !ok || x.Text != r.Text {
		return fmt.Errorf("the text differs")
	}
	return nil
}

func init() {
	engine.RegisterResource(Kind, func() engine.Res { return &Res{} })

	funcs.Register("acme", "shout", "func(s str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str(strings.ToUpper(string(a[0].(values.Str))) + "!"), nil
	}, funcs.Doc("Upper-cases a str and adds an exclamation mark.", `acme.shout("hi")`))
	funcs.Register("acme", "repeat", "func(s str, n int) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		n := int64(a[1].(values.Int))
		if n < 0 || n > 1000 {
			return nil, fmt.Errorf("repeat: n is %d, want 0 to 1000", n)
		}
		return values.Str(strings.Repeat(string(a[0].(values.Str)), int(n))), nil
	}, funcs.Doc("Repeats a str n times (0 to 1000).", `acme.repeat("ab", 3)`))
	funcs.Register("acme", "banner", "func(s str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str("== " + string(a[0].(values.Str)) + " =="), nil
	}, funcs.Doc("Frames a str as a banner.", `acme.banner("title")`))
}

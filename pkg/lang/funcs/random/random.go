// Package random holds the top-level mcl builtin random1(length), a random
// string of length letters and digits drawn from crypto/rand (each of the
// 62 characters equally likely: bytes that would bias the draw are
// rejected). It is impure: each evaluation of a call site with new
// arguments draws again. Lengths outside 0..maxLength are a runtime error.
package random

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"

	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/builtin"
)

const (
	alphabet  = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	maxLength = 1 << 16
)

func init() {
	if _, dup := funcs.Lookup("", "random1"); dup {
		return
	}
	funcs.RegisterFunc(&funcs.Func{Name: "random1", Sigs: funcs.Sigs("func(length int) str"),
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			s, err := String(int64(c.Args[0].(values.Int)))
			if err != nil {
				return nil, err
			}
			return values.Str(s), nil
		}, Doc: "A random string of letters and digits of the given length, drawn anew when the call site is evaluated with new arguments.", Example: "random1(16)"})
}

// String returns n random letters and digits.
func String(n int64) (string, error) {
	if n < 0 || n > maxLength {
		return "", fmt.Errorf("random1: length %d is outside 0..%d", n, maxLength)
	}
	out := make([]byte, 0, n)
	buf := make([]byte, 64)
	// 248 = 4*62: bytes at or above it would favour the first characters.
	const limit = 256 - 256%len(alphabet)
	for int64(len(out)) < n {
		if _, err := rand.Read(buf); err != nil {
			return "", err
		}
		for _, b := range buf {
			if int(b) < limit && int64(len(out)) < n {
				out = append(out, alphabet[int(b)%len(alphabet)])
			}
		}
	}
	return string(out), nil
}

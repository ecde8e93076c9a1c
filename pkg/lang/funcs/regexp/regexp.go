// Package regexp holds the mcl module "regexp": match(pattern, s) reports
// whether s contains a match of the RE2 pattern (Go's regexp syntax). A
// malformed pattern is a catchable error. Compiled patterns are cached, as
// a program usually calls match with a few constant patterns.
package regexp

import (
	"context"
	"regexp"
	"sync"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// maxCache bounds the number of cached patterns; the cache is emptied
// when it is full.
const maxCache = 256

var (
	mu    sync.Mutex
	cache = map[string]*regexp.Regexp{}
)

func init() {
	if funcs.IsModule("regexp") {
		return // registered by another package already (the core's packages initialise first)
	}
	funcs.Register("regexp", "match", "func(pattern str, s str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		re, err := compile(string(a[0].(values.Str)))
		if err != nil {
			return nil, err
		}
		return values.Bool(re.MatchString(string(a[1].(values.Str)))), nil
	}, funcs.Doc("Whether a Go regular expression (RE2 syntax) matches somewhere in s.", `regexp.match("^web[0-9]+$", "web12")`))
}

func compile(pattern string) (*regexp.Regexp, error) {
	mu.Lock()
	defer mu.Unlock()
	if re, ok := cache[pattern]; ok {
		return re, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, funcs.Catchablef("regexp.match: %v", err)
	}
	if len(cache) >= maxCache {
		cache = map[string]*regexp.Regexp{}
	}
	cache[pattern] = re
	return re, nil
}

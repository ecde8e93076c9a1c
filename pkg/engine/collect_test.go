package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// tcollect declares collect rules the way the resource kinds do.
type tcollect struct {
	traits.Base
	Path  string   `lang:"path" collect:"name"`
	Files []string `lang:"files" collect:"local"`
	Other string   `lang:"other"`
}

func (r *tcollect) Default() engine.Res                            { return &tcollect{} }
func (r *tcollect) Validate() error                                { return nil }
func (r *tcollect) Init(*engine.Init) error                        { return nil }
func (r *tcollect) Cleanup() error                                 { return nil }
func (r *tcollect) Watch(ctx context.Context) error                { <-ctx.Done(); return nil }
func (r *tcollect) Cmp(engine.Res) error                           { return nil }
func (r *tcollect) CheckApply(context.Context, bool) (bool, error) { return true, nil }

// tnocollect refuses to be collected.
type tnocollect struct{ tcollect }

func (r *tnocollect) Default() engine.Res { return &tnocollect{} }
func (r *tnocollect) Collectable() bool   { return false }

// tbadtag has a collect tag the registry must reject.
type tbadtag struct {
	tcollect
	N int `lang:"n" collect:"name"`
}

func (r *tbadtag) Default() engine.Res { return &tbadtag{} }

func TestCollectRules(t *testing.T) {
	if _, done := graph.LookupKind("tcollect"); !done { // -count=N runs it again
		engine.RegisterResource("tcollect", func() engine.Res { return &tcollect{} })
		engine.RegisterResource("tnocollect", func() engine.Res { return &tnocollect{} })
	}
	s, _ := graph.LookupKind("tcollect")
	if want := (graph.CollectRules{Name: []string{"path"}, Local: []string{"files"}}); !reflect.DeepEqual(s.Collect, want) {
		t.Errorf("tcollect rules %+v, want %+v", s.Collect, want)
	}
	if s, _ := graph.LookupKind("tnocollect"); !s.Collect.Refused {
		t.Errorf("tnocollect rules %+v, want refused", s.Collect)
	}
	if !slices.Contains(engine.RegisteredKinds(), "tbadtag") {
		engine.RegisterResource("tbadtag", func() engine.Res { return &tbadtag{} })
	}
	// The schema of a kind is made on its first look-up, which panics
	// on a kind it cannot describe, and so does every later one.
	for range 2 {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `collect:"name" needs a str parameter`) {
					t.Errorf("looking up a kind with a non-str name parameter: %v", r)
				}
			}()
			graph.LookupKind("tbadtag")
		}()
	}
}

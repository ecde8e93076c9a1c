package engine_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// GreetRes is a resource kind defined outside the project: it makes sure a
// greeting is recorded in an in-memory guest book.
type GreetRes struct {
	traits.Base

	init *engine.Init

	Who string `lang:"who" yaml:"who"`
}

var (
	bookMu sync.Mutex
	book   = map[string]string{}
)

func (r *GreetRes) Default() engine.Res { return &GreetRes{Who: "world"} }

func (r *GreetRes) Validate() error {
	if r.Who == "" {
		return fmt.Errorf("who is empty")
	}
	return nil
}

func (r *GreetRes) Init(init *engine.Init) error { r.init = init; return nil }
func (r *GreetRes) Cleanup() error               { return nil }

func (r *GreetRes) Watch(ctx context.Context) error {
	r.init.Running() // nothing to watch: the guest book only changes here
	<-ctx.Done()
	return nil
}

func (r *GreetRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	bookMu.Lock()
	defer bookMu.Unlock()
	want := "hello, " + r.Who
	if book[r.Name()] == want {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	book[r.Name()] = want
	return false, nil
}

func (r *GreetRes) Cmp(o engine.Res) error {
	x, ok := o.(*GreetRes)
	if !ok || x.Who != r.Who {
		return fmt.Errorf("the who param differs")
	}
	return nil
}

func init() {
	engine.RegisterResource("example:greet", func() engine.Res { return &GreetRes{} })
}

// A program registers its own resource kind and runs a graph with it until
// the graph has converged.
func Example_customKind() {
	doc := &graph.Document{Mgmt: graph.Version, Graph: "example", Seq: 1,
		Resources: []*graph.Resource{
			{Kind: "example:greet", Name: "first", Params: map[string]any{"who": "alice"}},
			{Kind: "example:greet", Name: "second"}, // who defaults to "world"
		},
		Edges: []*graph.Edge{{
			From: graph.Ref{Kind: "example:greet", Name: "first"},
			To:   graph.Ref{Kind: "example:greet", Name: "second"},
		}},
	}
	g, err := engine.Build(doc, engine.BuildOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	e := engine.New(engine.Config{ConvergedTimeout: 0})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		e.Run(ctx)
		close(done)
	}()
	e.Load(g)
	select {
	case <-e.Converged():
	case <-time.After(10 * time.Second):
		fmt.Println("not converged")
	}
	cancel()
	<-done

	bookMu.Lock()
	defer bookMu.Unlock()
	var names []string
	for n := range book {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Printf("%s: %s\n", n, book[n])
	}
	// Output:
	// first: hello, alice
	// second: hello, world
}

package library

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs/value"
	"github.com/mgmtpipe/mgmt/pkg/lang/sem"
)

// run compiles src and runs it until ctx ends, sending the sorted names of
// the test resources of each graph it produces.
func run(t *testing.T, ctx context.Context, src string, opts sem.Options, once bool) <-chan []string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "main.mcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, err := sem.Check(path, []byte(src), opts)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	ch := make(chan []string, 100)
	done := make(chan error, 1)
	go func() {
		done <- sem.NewEngine(prog).Run(ctx, once, func(doc *graph.Document) error {
			if doc.Error != nil {
				t.Errorf("error document: %+v", doc.Error)
			}
			var names []string
			for _, r := range doc.Resources {
				if r.Kind == "test" {
					names = append(names, r.Name)
				}
			}
			sort.Strings(names)
			ch <- names
			return nil
		})
		close(ch)
	}()
	t.Cleanup(func() {
		if err := <-done; err != nil && ctx.Err() == nil {
			t.Errorf("run: %v", err)
		}
	})
	return ch
}

func waitGraph(t *testing.T, ch <-chan []string, want ...string) {
	t.Helper()
	want = slices.Sorted(slices.Values(want))
	deadline := time.After(10 * time.Second)
	var last []string
	for {
		select {
		case got, ok := <-ch:
			if !ok {
				t.Fatalf("program ended; last graph %q, want %q", last, want)
			}
			if slices.Equal(got, want) {
				return
			}
			last = got
		case <-deadline:
			t.Fatalf("timed out; last graph %q, want %q", last, want)
		}
	}
}

// TestPureLibrary compiles a program calling the library's pure functions
// and checks the graph it produces.
func TestPureLibrary(t *testing.T) {
	src := `import "fmt"
import "regexp"
import "util"
import "local"
import "os"
import "golang/strings" as gs
import "golang/strconv"
import "golang/math"
import "golang"

$d = os.parse_distro_uid("fedora39-x86_64")
test [fmt.printf("match %t", regexp.match("^a.c$", "abc"))] {}
test [fmt.printf("mapped %q", util.hostname_mapper({"fe:ff:ff:ff:ff:fe" => "first"}))] {}
test [fmt.printf("pool %d", local.pool("ns", "uid1"))] {}
test [$d->distro + " " + $d->version + " " + $d->arch] {}
test [gs.to_title("loud") + strconv.itoa(42)] {}
test [fmt.printf("%f", math.sqrt(2.25))] {}
test [golang.template("{{ golang_strconv_itoa 7 }}-{{ golang_strings_to_title .Name }}", struct{name => "x"})] {}
test [fmt.printf("caught %t", regexp.match("(", "x") <|> true)] {}
`
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := run(t, ctx, src, sem.Options{Prefix: t.TempDir(), Hostname: "h1"}, true)
	waitGraph(t, ch, "1.5", "7-X", "LOUD42", "caught true", "fedora 39 x86_64", `mapped ""`, "match true", "pool 1")
}

// TestValueStore runs a program reading the value store and checks that
// each change of the stored value produces a new graph.
func TestValueStore(t *testing.T) {
	src := `import "value"
import "fmt"
$v = value.get_str("greeting")
$name = if $v->ready { $v->value } else { "unset" }
test [$name] {}
$n = value.get("count") # the value's type comes from its use
test [fmt.printf("count %d", $n->value + 1)] {}
`
	prefix := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := run(t, ctx, src, sem.Options{Prefix: prefix}, false)
	waitGraph(t, ch, "count 1", "unset")
	p := value.Path(prefix, "greeting")
	for _, s := range []string{"hello", "bye"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p+".tmp", []byte(`"`+s+`"`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p+".tmp", p); err != nil {
			t.Fatal(err)
		}
		waitGraph(t, ch, "count 1", s)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	waitGraph(t, ch, "count 1", "unset")
	if err := os.WriteFile(value.Path(prefix, "count"), []byte("41"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitGraph(t, ch, "count 42", "unset")
}

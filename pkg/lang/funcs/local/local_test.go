package local

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func TestVardir(t *testing.T) {
	prefix := t.TempDir()
	f, _ := funcs.Lookup("local", "vardir")
	v, err := f.Impl(context.Background(), &funcs.Call{Type: f.Sigs[0], Args: []values.Value{values.Str("my/dir")}, Env: &funcs.Env{Prefix: prefix}})
	if err != nil {
		t.Fatal(err)
	}
	want := prefix + "/vardir/my/dir/"
	if string(v.(values.Str)) != want {
		t.Fatalf("got %s, want %s", v, want)
	}
	if st, err := os.Stat(want); err != nil || !st.IsDir() {
		t.Fatalf("%s was not created: %v", want, err)
	}
	for _, bad := range []string{"", "/abs", "..", "../x", "a/../../x", "."} {
		if _, err := Vardir(prefix, bad); err == nil {
			t.Errorf("Vardir(%q) succeeded", bad)
		}
	}
}

func TestPool(t *testing.T) {
	prefix := t.TempDir()
	steps := []struct {
		ns, uid string
		want    int64
	}{
		{"ns", "a", 1}, {"ns", "b", 2}, {"ns", "a", 1}, {"other", "b", 1}, {"ns", "c/d", 3}, {"ns", "b", 2},
	}
	for _, s := range steps {
		got, err := Pool(prefix, s.ns, s.uid)
		if err != nil {
			t.Fatal(err)
		}
		if got != s.want {
			t.Errorf("Pool(%q, %q) = %d, want %d", s.ns, s.uid, got, s.want)
		}
	}
	// a freed number is reused
	if err := os.Remove(prefix + "/pool/ns/b"); err != nil {
		t.Fatal(err)
	}
	if got, _ := Pool(prefix, "ns", "e"); got != 2 {
		t.Errorf("after freeing 2, got %d", got)
	}
	if _, err := Pool(prefix, "", "x"); err == nil {
		t.Error("empty namespace accepted")
	}
}

func TestPoolConcurrent(t *testing.T) {
	prefix := t.TempDir()
	const n = 20
	got := make([]int64, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			v, err := Pool(prefix, "ns", fmt.Sprint("uid", i))
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		}(i)
	}
	wg.Wait()
	seen := map[int64]bool{}
	for _, v := range got {
		if v < 1 || v > n || seen[v] {
			t.Fatalf("numbers not unique in 1..%d: %v", n, got)
		}
		seen[v] = true
	}
}

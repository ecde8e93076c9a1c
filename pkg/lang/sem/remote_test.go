package sem_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/sem"
)

// TestRemoteModule imports a module from a git repository (a local URL),
// fetched with the system git into the cache under the prefix; the alias
// drops the "mgmt-" prefix of the repository name.
func TestRemoteModule(t *testing.T) {
	testneed.Command(t, "git", "git")
	repo := filepath.Join(t.TempDir(), "mgmt-remote")
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(repo, "metadata.yaml"), []byte("main: \"main.mcl\"\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "main.mcl"), []byte("$greeting = \"hello from git\"\n"), 0o644)
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "."},
		{"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "module"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	dir := t.TempDir()
	main := filepath.Join(dir, "main.mcl")
	src := "import \"file://" + repo + "/\"\ntest [$remote.greeting] {}\n"
	os.WriteFile(main, []byte(src), 0o644)
	prefix := t.TempDir()
	if _, err := sem.Check(main, nil, sem.Options{Prefix: prefix}); err == nil {
		t.Fatal("a missing module was fetched without Download")
	}
	for i := 0; i < 2; i++ { // the second time, from the cache
		prog, err := sem.Check(main, nil, sem.Options{Prefix: prefix, Download: i == 0})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(prefix, "modules")); err != nil {
			t.Fatal("no module cache under the prefix")
		}
		var doc *graph.Document
		err = sem.NewEngine(prog).Run(context.Background(), true, func(d *graph.Document) error {
			doc = d
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := graphLines(doc); got != "Vertex: test[hello from git]\n" {
			t.Fatalf("got %q", got)
		}
	}
}

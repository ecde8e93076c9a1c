package puppet

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestFileBackupAgainstPuppet replaces and removes the same files twice:
// with the file kind's backup "puppet", and with real Puppet's backup =>
// 'puppet' through pippet, each with a puppet.conf naming its own bucket
// directory and digest. The two buckets
// must hold the same entries with the same modes and contents, and
// `puppet filebucket -l` must list and restore what the file kind stored.
func TestFileBackupAgainstPuppet(t *testing.T) {
	testneed.Puppet(t)
	for _, digest := range []string{"md5", "sha256"} {
		t.Run(digest, func(t *testing.T) {
			dir := t.TempDir()
			f, gone := filepath.Join(dir, "f.conf"), filepath.Join(dir, "gone.conf")
			buckets := map[string]string{}
			for _, side := range []string{"native", "puppet"} {
				b := filepath.Join(dir, side+"-bucket")
				if err := os.Mkdir(b, 0o750); err != nil {
					t.Fatal(err)
				}
				buckets[side] = b
				os.WriteFile(f, []byte("old content\n"), 0o644)
				os.WriteFile(gone, []byte("removed content\n"), 0o600)
				conf := filepath.Join(dir, side+".conf")
				os.WriteFile(conf, []byte(fmt.Sprintf("[main]\nclientbucketdir = %s\ndigest_algorithm = %s\n", b, digest)), 0o644)
				var rs []*graph.Resource
				if side == "native" {
					// the bucket Puppet reports for conf, as a translated
					// backup => 'puppet' names it
					backup := map[string]any{"backup": "puppet", "backup_puppetconf": conf}
					rs = []*graph.Resource{
						{Kind: "file", Name: f, Params: with(backup, "state", "exists", "content", "new content\n")},
						{Kind: "file", Name: gone, Params: with(backup, "state", "absent")},
					}
				} else {
					rs = []*graph.Resource{
						pippetFile(f, conf, map[string]any{"ensure": "file", "content": "new content\n", "backup": "puppet"}),
						pippetFile(gone, conf, map[string]any{"ensure": "absent", "backup": "puppet"}),
					}
				}
				applyResources(t, rs)
				if b, err := os.ReadFile(f); err != nil || string(b) != "new content\n" {
					t.Fatalf("%s: %s holds %q (%v)", side, f, b, err)
				}
				if _, err := os.Lstat(gone); err == nil {
					t.Fatalf("%s: %s is still there", side, gone)
				}
			}
			n, p := bucketTree(t, buckets["native"]), bucketTree(t, buckets["puppet"])
			if n != p || strings.Count(n, "/contents -r--r----- ") != 2 {
				t.Errorf("the buckets differ or do not hold both files:\nnative:\n%s\nPuppet:\n%s", n, p)
			}
			bucket := []string{"filebucket", "-l", "--clientbucketdir", buckets["native"], "--digest_algorithm", digest}
			list := puppetOut(t, append(bucket, "list")...)
			if !strings.Contains(list, " "+f+"\n") || !strings.Contains(list, " "+gone+"\n") {
				t.Fatalf("puppet filebucket list does not show both files:\n%s", list)
			}
			for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
				sum, path := strings.Fields(line)[0], strings.Fields(line)[3]
				puppetOut(t, append(bucket, "restore", path, sum)...)
			}
			for path, want := range map[string]string{f: "old content\n", gone: "removed content\n"} {
				if b, err := os.ReadFile(path); err != nil || string(b) != want {
					t.Errorf("restored %s holds %q (%v), want %q", path, b, err, want)
				}
			}
		})
	}
}

// with returns a copy of params with the pairs kv added.
func with(params map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range params {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// pippetFile is a Puppet file resource run by pippet with the puppet.conf
// conf.
func pippetFile(path, conf string, params map[string]any) *graph.Resource {
	js, _ := json.Marshal(params)
	return &graph.Resource{Kind: "pippet", Name: "File[" + path + "]", Params: map[string]any{
		"type": "file", "title": path, "params": string(js), "puppetconf": conf}}
}

// applyResources applies the resources once with mgmt-apply.
func applyResources(t *testing.T, rs []*graph.Resource) {
	t.Helper()
	var in strings.Builder
	if err := graph.Encode(&in, &graph.Document{Mgmt: graph.Version, Graph: "g", Resources: rs}, graph.JSON); err != nil {
		t.Fatal(err)
	}
	a := testutil.Run(t, in.String(), "mgmt-apply", "--converged-timeout", "1", "--tmp-prefix")
	if a.Code != 0 {
		t.Fatalf("mgmt-apply: exit %d: %s", a.Code, a.Stderr)
	}
}

// bucketTree lists every entry of a bucket directory with its mode and,
// for a file, its content.
func bucketTree(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		line := fmt.Sprintf("%s %v", rel, fi.Mode())
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			line += fmt.Sprintf(" %q", b)
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// puppetOut runs puppet with args and returns its output.
func puppetOut(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("puppet", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("puppet %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

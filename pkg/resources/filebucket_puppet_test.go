package resources

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

// TestFileBackupPuppet: backup "puppet" stores old contents in the
// bucket the local Puppet reports for the resource's puppet.conf (its
// [user] section, as puppet apply reads it, over [main]), and asks
// Puppet once for every file of the process.
func TestFileBackupPuppet(t *testing.T) {
	testneed.Puppet(t)
	real, _ := exec.LookPath("puppet")
	h := newHarness(t)
	dir := t.TempDir()
	// puppet, counting its runs
	bin, runs := filepath.Join(dir, "bin"), filepath.Join(dir, "runs")
	os.Mkdir(bin, 0o755)
	mustWrite(t, filepath.Join(bin, "puppet"), "#!/bin/sh\necho run >> "+runs+"\nexec "+real+" \"$@\"\n")
	os.Chmod(filepath.Join(bin, "puppet"), 0o755)
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	bucket := filepath.Join(dir, "bucket")
	conf := filepath.Join(dir, "puppet.conf")
	mustWrite(t, conf, "[main]\nclientbucketdir = "+filepath.Join(dir, "main-bucket")+"\n[user]\nclientbucketdir = "+bucket+"\ndigest_algorithm = md5\n")
	for _, name := range []string{"a", "b"} {
		p := filepath.Join(dir, name)
		mustWrite(t, p, "old "+name+"\n")
		f := newFile(t, h, p, &FileRes{Content: strp("new\n"), Rare: &FileRare{Backup: BackupPuppet, BackupPuppetConf: conf}})
		checkApply(t, f, true, false)
		checkApply(t, f, true, true)
	}
	// md5("old a\n") and md5("old b\n"), each split by its first 8 digits
	matches, _ := filepath.Glob(filepath.Join(bucket, "*", "*", "*", "*", "*", "*", "*", "*", "*", "contents"))
	var stored []string
	for _, m := range matches {
		stored = append(stored, mustRead(t, m))
	}
	if sort.Strings(stored); strings.Join(stored, "") != "old a\nold b\n" {
		t.Fatalf("bucket entries %v hold %q", matches, stored)
	}
	if exists(filepath.Join(dir, "main-bucket")) {
		t.Fatal("the [main] bucket was used")
	}
	if got := mustRead(t, runs); got != "run\n" {
		t.Fatalf("puppet ran %d times, want once", strings.Count(got, "run"))
	}
}

// TestFileBackupPuppetMissing: without Puppet, a file with backup
// "puppet" that must be replaced fails, and keeps its content.
func TestFileBackupPuppetMissing(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	t.Setenv("PATH", filepath.Join(dir, "empty"))
	p := filepath.Join(dir, "f")
	mustWrite(t, p, "old\n")
	f := newFile(t, h, p, &FileRes{Content: strp("new\n"), Rare: &FileRare{Backup: BackupPuppet, BackupPuppetConf: filepath.Join(dir, "puppet.conf")}})
	if _, err := f.CheckApply(context.Background(), true); err == nil || !strings.Contains(err.Error(), "Puppet is not installed") {
		t.Fatalf("err %v, want Puppet is not installed", err)
	}
	if got := mustRead(t, p); got != "old\n" {
		t.Fatalf("the file was replaced without its backup: %q", got)
	}
	// a new file has nothing to back up: Puppet is not needed
	n := newFile(t, h, filepath.Join(dir, "made"), &FileRes{State: "exists", Content: strp("new\n"), Rare: &FileRare{Backup: BackupPuppet}})
	checkApply(t, n, true, false)
	if got := mustRead(t, filepath.Join(dir, "made")); got != "new\n" {
		t.Fatalf("new file holds %q", got)
	}
}

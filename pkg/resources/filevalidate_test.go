package resources

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileValidateCmd: a new content is written only when the command,
// run on a temporary file that holds it with the mode it is written with
// (an existing file's, as in Puppet; the mode is set after), exits 0.
func TestFileValidateCmd(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	seen := filepath.Join(dir, "seen")
	mustWrite(t, p, "old\n")
	// The check copies the file it gets and its mode, and accepts only
	// a content starting with "good".
	check := "stat -c %a @ > " + seen + ".mode && cp @ " + seen + " && grep -q ^good @"
	bad := newFile(t, h, p, &FileRes{State: "exists", Content: strp("bad\n"), Mode: "0640", Rare: &FileRare{ValidateCmd: check, ValidateReplacement: "@"}})
	ok, err := bad.CheckApply(context.Background(), true)
	if ok || err == nil || !strings.Contains(err.Error(), "refused the new content") {
		t.Fatalf("a refused content: ok %v, err %v", ok, err)
	}
	if got := mustRead(t, p); got != "old\n" {
		t.Fatalf("a refused content was written: %q", got)
	}
	if got := mustRead(t, seen); got != "bad\n" {
		t.Fatalf("the command saw %q, want the new content", got)
	}
	if got := mustRead(t, seen+".mode"); got != "644\n" {
		t.Fatalf("the command saw mode %q, want the existing file's 644", got)
	}
	if tmp := tempFiles(t, dir); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
	good := newFile(t, h, p, &FileRes{State: "exists", Content: strp("good\n"), Rare: &FileRare{ValidateCmd: "grep -q ^good %"}})
	checkApply(t, good, true, false)
	checkApply(t, good, true, true)
	if got := mustRead(t, p); got != "good\n" {
		t.Fatalf("an accepted content was not written: %q", got)
	}
	created := filepath.Join(dir, "new")
	refusedNew := newFile(t, h, created, &FileRes{State: "exists", Content: strp("bad\n"), Rare: &FileRare{ValidateCmd: "grep -q ^good %"}})
	if _, err := refusedNew.CheckApply(context.Background(), true); err == nil || exists(created) {
		t.Fatalf("a refused new file: err %v, created %v", err, exists(created))
	}
}

// TestFileValidateCmdParams: validate_cmd needs a file with content.
func TestFileValidateCmdParams(t *testing.T) {
	for _, f := range []*FileRes{
		{Path: "/d/", State: "exists", Rare: &FileRare{ValidateCmd: "true %"}},
		{Path: "/f", State: "absent", Rare: &FileRare{ValidateCmd: "true %"}},
		{Path: "/f", State: "exists", Rare: &FileRare{ValidateReplacement: "@"}},
		{Path: "/f", Rare: &FileRare{Backup: "relative/bucket"}},
		{Path: "/f", Rare: &FileRare{Backup: "/b", BackupDigest: "crc32"}},
		{Path: "/f", Rare: &FileRare{BackupDigest: "md5"}},
		{Path: "/f", Rare: &FileRare{Backup: "puppet", BackupDigest: "md5"}},
		{Path: "/f", Rare: &FileRare{Backup: "puppet", BackupPuppetConf: "puppet.conf"}},
		{Path: "/f", Rare: &FileRare{Backup: "/b", BackupPuppetConf: "/etc/puppet/puppet.conf"}},
	} {
		f.SetKind("file")
		f.SetName("/x")
		if err := f.Validate(); err == nil {
			t.Errorf("%+v: no error", f)
		}
	}
}

// TestFileBackupBucketChecks: a bucket another user could write to is
// refused, and nothing is replaced.
func TestFileBackupBucketChecks(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	bucket := filepath.Join(dir, "bucket")
	if err := os.Mkdir(bucket, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(bucket, 0o777)
	p := filepath.Join(dir, "f")
	mustWrite(t, p, "old\n")
	f := newFile(t, h, p, &FileRes{Content: strp("new\n"), Rare: &FileRare{Backup: bucket}})
	if _, err := f.CheckApply(context.Background(), true); err == nil || !strings.Contains(err.Error(), "may be written by others") {
		t.Fatalf("an open bucket: err %v", err)
	}
	if got := mustRead(t, p); got != "old\n" {
		t.Fatalf("the file was replaced without its backup: %q", got)
	}
	// A missing bucket is made root-only.
	missing := filepath.Join(dir, "new-bucket")
	g := newFile(t, h, p, &FileRes{Content: strp("new\n"), Rare: &FileRare{Backup: missing, BackupDigest: "md5"}})
	checkApply(t, g, true, false)
	if perm := permOf(t, missing); perm != 0o750 {
		t.Fatalf("new bucket mode %04o, want 0750", perm)
	}
	// md5("old\n") = 5ae66...: the layout splits its first 8 digits.
	matches, _ := filepath.Glob(filepath.Join(missing, "*", "*", "*", "*", "*", "*", "*", "*", "*", "contents"))
	if len(matches) != 1 || mustRead(t, matches[0]) != "old\n" {
		t.Fatalf("bucket entries %v", matches)
	}
}

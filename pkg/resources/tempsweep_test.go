package resources

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// sweepAgain lets the next sweep of dir run in this process.
func sweepAgain(dir string) { cleanedDirs.Delete(dir) }

// lockTemp opens path and locks it as a live writer does, until the test
// ends.
func lockTemp(t *testing.T, path string) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
}

// TestSweepTemps: a temporary file nobody holds the lock of is a
// leftover, removed at once whatever its age; one a live writer holds is
// kept.
func TestSweepTemps(t *testing.T) {
	dir := t.TempDir()
	left := filepath.Join(dir, ".f"+tmpMarker+"1")
	writing := filepath.Join(dir, ".f"+tmpMarker+"2")
	mustWrite(t, left, "left by a killed process")
	mustWrite(t, writing, "a write in progress")
	lockTemp(t, writing)
	sweepAgain(dir)
	sweepStaleTemps(dir, time.Now())
	if exists(left) || !exists(writing) {
		t.Fatalf("left %v (want removed), writing %v (want kept)", exists(left), exists(writing))
	}
}

// TestTempLockedToRename: the temporary file of an atomic write is locked
// from its creation to its rename, so that no sweep removes it, even after
// the writing descriptor is closed (keepLock).
func TestTempLockedToRename(t *testing.T) {
	dir := t.TempDir()
	err := replaceAtomic(t.Context(), filepath.Join(dir, "f"), 0o644, -1, -1, func(fd int, tmp string) error {
		sweepAgain(dir)
		sweepStaleTemps(dir, time.Now())
		if !exists(tmp) {
			t.Fatal("the sweep removed a temporary file being written")
		}
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fd, tmp, _, err := createTemp(dir, ".g"+tmpMarker, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	release := keepLock(fd)
	syscall.Close(fd)
	sweepAgain(dir)
	sweepStaleTemps(dir, time.Now())
	if !exists(tmp) {
		t.Fatal("the lock did not outlive the writing descriptor")
	}
	release()
	sweepAgain(dir)
	sweepStaleTemps(dir, time.Now())
	if exists(tmp) {
		t.Fatal("a temporary file left unlocked is kept")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || ents[0].Name() != "f" {
		t.Fatalf("the directory holds %v", ents)
	}
}

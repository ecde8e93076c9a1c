package resources

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// sweepAgain lets the next sweep of dir run in this process.
func sweepAgain(dir string) {
	cleanedDirs.mu.Lock()
	delete(cleanedDirs.m, dir)
	cleanedDirs.mu.Unlock()
}

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
// the writing descriptor is closed (keepLock), whether it was made with
// its name or unnamed and named once written.
func TestTempLockedToRename(t *testing.T) {
	for _, named := range []bool{false, true} {
		dir := t.TempDir()
		if named {
			refuseUnnamed(t, dir)
		}
		sweep := func(tmp string) error {
			sweepAgain(dir)
			sweepStaleTemps(dir, time.Now())
			if !exists(tmp) {
				t.Fatalf("the sweep removed the temporary file %s (named at once: %v)", tmp, named)
			}
			return nil
		}
		err := replaceAtomic(t.Context(), filepath.Join(dir, "f"), 0o644, -1, -1, nil, func(fd int, tmp string) error {
			if named {
				return sweep(tmp)
			}
			return nil
		}, sweep)
		if err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, filepath.Join(dir, "f")); got != "" {
			t.Fatalf("content %q", got)
		}
	}
	dir := t.TempDir()
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
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("the directory holds %v", ents)
	}
}

// TestSweepTempsOnlyFiles: an entry named as a temporary file that is no
// regular file (a directory, a symbolic link, a FIFO, which opening could
// block on) is neither opened nor removed by the sweep.
func TestSweepTempsOnlyFiles(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, ".d"+tmpMarker+"1")
	link := filepath.Join(dir, ".l"+tmpMarker+"2")
	fifo := filepath.Join(dir, ".p"+tmpMarker+"3")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sweepAgain(dir)
	sweepStaleTemps(dir, time.Now().Add(2*staleTempAge))
	for _, p := range []string{sub, link, fifo} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

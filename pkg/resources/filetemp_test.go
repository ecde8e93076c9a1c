package resources

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/mgmtpipe/mgmt/internal/benchcpu"
	"github.com/mgmtpipe/mgmt/internal/testneed"
	"golang.org/x/sys/unix"
)

// refuseUnnamed makes the atomic writes in dir create their temporary
// files with their names at once, as on a file system without O_TMPFILE.
func refuseUnnamed(t *testing.T, dir string) {
	noTmpfile.Store(dir+"/", true)
	t.Cleanup(func() { noTmpfile.Delete(dir + "/") })
}

// dirEvents watches dir and returns a function that returns the events
// seen since, as "NAME MASK" lines.
func dirEvents(t *testing.T, dir string) func() []string {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_ALL_EVENTS); err != nil {
		t.Fatal(err)
	}
	return func() []string {
		var out []string
		buf := make([]byte, 64<<10)
		n, _ := unix.Read(fd, buf)
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)]), "\x00")
			out = append(out, name+" "+maskWords(ev.Mask))
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
		return out
	}
}

func maskWords(m uint32) string {
	var w []string
	for _, b := range []struct {
		bit  uint32
		name string
	}{{unix.IN_CREATE, "create"}, {unix.IN_MODIFY, "modify"}, {unix.IN_ATTRIB, "attrib"},
		{unix.IN_OPEN, "open"}, {unix.IN_CLOSE_WRITE, "close-write"}, {unix.IN_MOVED_FROM, "moved-from"},
		{unix.IN_MOVED_TO, "moved-to"}, {unix.IN_DELETE, "delete"}} {
		if m&b.bit != 0 {
			w = append(w, b.name)
		}
	}
	return strings.Join(w, ",")
}

// TestAtomicWriteUnnamed: where the file system allows it, the temporary
// file of an atomic write is written, given its mode and owner, and only
// then named and renamed: nobody could open it while it was incomplete,
// and the directory reports no write to it.
func TestAtomicWriteUnnamed(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	mustWrite(t, p, "old")
	events := dirEvents(t, dir)
	if err := writeAtomic(t.Context(), p, []byte("new\n"), 0o640, -1, -1); err != nil {
		t.Fatal(err)
	}
	if _, refused := noTmpfile.Load(dir + "/"); refused {
		testneed.Missing(t, "the file system of %s refuses O_TMPFILE", dir)
	}
	if got := mustRead(t, p); got != "new\n" || permOf(t, p) != 0o640 {
		t.Fatalf("content %q mode %04o, want \"new\\n\" 0640", got, permOf(t, p))
	}
	seen := events()
	var tmp []string
	for _, e := range seen {
		if strings.Contains(e, tmpMarker) {
			tmp = append(tmp, e)
		}
	}
	// The temporary name appears (linked) and leaves (renamed): nothing
	// else happens to it under its name.
	if len(tmp) != 2 || !strings.HasSuffix(tmp[0], " create") || !strings.HasSuffix(tmp[1], " moved-from") {
		t.Fatalf("events of the temporary name: %q (all: %q)", tmp, seen)
	}
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// TestAtomicWriteLinkThroughProc: a process that may not link a
// descriptor directly (AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH) names the
// unnamed file through /proc/self/fd.
func TestAtomicWriteLinkThroughProc(t *testing.T) {
	emptyPathLink.Store(false)
	t.Cleanup(func() { emptyPathLink.Store(true) })
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := writeAtomic(t.Context(), p, []byte("via proc\n"), 0o600, -1, -1); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, p); got != "via proc\n" || permOf(t, p) != 0o600 {
		t.Fatalf("content %q mode %04o", got, permOf(t, p))
	}
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// TestAtomicWriteFailureLeavesNothing: a write that fails (here its check)
// leaves the path as it was and no temporary file, named at once or not.
func TestAtomicWriteFailureLeavesNothing(t *testing.T) {
	for _, named := range []bool{false, true} {
		dir := t.TempDir()
		if named {
			refuseUnnamed(t, dir)
		}
		p := filepath.Join(dir, "f")
		mustWrite(t, p, "old")
		err := writeAtomicChecked(t.Context(), p, []byte("new"), 0o644, -1, -1, func(tmp string) error {
			if got := mustRead(t, tmp); got != "new" {
				t.Fatalf("the check reads %q", got)
			}
			return os.ErrInvalid
		})
		if err != os.ErrInvalid {
			t.Fatalf("error %v", err)
		}
		if got := mustRead(t, p); got != "old" {
			t.Fatalf("content %q after a failed write", got)
		}
		if left := tempFiles(t, dir); len(left) > 0 {
			t.Fatalf("temporary files left (named at once: %v): %v", named, left)
		}
	}
}

// TestSameContentBounds: the comparison tells a file that grew or shrank
// since its stat, across the chunks of the read buffer.
func TestSameContentBounds(t *testing.T) {
	dir := t.TempDir()
	chunk := len(*readBufs.Get().(*[]byte))
	for _, n := range []int{0, 1, 7, chunk - 1, chunk, chunk + 1, 2 * chunk} {
		want := bytes.Repeat([]byte("x"), n)
		p := filepath.Join(dir, "f")
		for _, c := range []struct {
			content string
			same    bool
		}{{string(want), true}, {string(want) + "y", false}, {string(want[:max(n-1, 0)]), n == 0}} {
			mustWrite(t, p, c.content)
			// size as the stat saw it: the wanted one; the file
			// opened by sameContent, or already open
			same, err := sameContent(p, -1, int64(n), want)
			if err != nil || same != c.same {
				t.Fatalf("%d bytes wanted, %d there: same %v (%v), want %v", n, len(c.content), same, err, c.same)
			}
			fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			same, err = sameContent(p, fd, int64(n), want)
			syscall.Close(fd)
			if err != nil || same != c.same {
				t.Fatalf("open file: %d bytes wanted, %d there: same %v (%v), want %v", n, len(c.content), same, err, c.same)
			}
		}
	}
}

// BenchmarkAtomicWrite times the atomic replacement of a small file
// among 1,000 in its directory, through an unnamed temporary file named
// once complete (the default where the file system allows it) and through
// one created with its name: wall time per write, and the CPU time of the
// process per write (cpu-us/op), which depends less on the machine's load.
func BenchmarkAtomicWrite(b *testing.B) {
	for _, named := range []bool{false, true} {
		name := "unnamed"
		if named {
			name = "named"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			for i := 0; i < 1000; i++ {
				if err := os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)), []byte("file\n"), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			if named {
				noTmpfile.Store(dir+"/", true)
				defer noTmpfile.Delete(dir + "/")
			}
			data := []byte("file 1\n")
			c0 := benchcpu.Time()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := writeAtomic(b.Context(), filepath.Join(dir, "f"+strconv.Itoa(i%1000)), data, 0o644, -1, -1); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64((benchcpu.Time()-c0).Microseconds())/float64(b.N), "cpu-us/op")
			if _, refused := noTmpfile.Load(dir + "/"); refused && !named {
				b.Logf("the file system of %s refuses O_TMPFILE: both write with a named file", dir)
			}
		})
	}
}

// TestUnnamedStatAndMountCache checks that the status of an unnamed
// temporary file taken with statx is the one fstat gives, and that the
// kind of its file system is kept by its mount's unique ID once asked.
func TestUnnamedStatAndMountCache(t *testing.T) {
	dir := t.TempDir()
	tf, ok := openUnnamed(dir, ".x"+tmpMarker, 0o640)
	if !ok {
		testneed.Missing(t, "the file system of the test directory refuses O_TMPFILE")
	}
	defer tf.end(true)
	var st unix.Stat_t
	if err := unix.Fstat(tf.fd, &st); err != nil {
		t.Fatal(err)
	}
	if tf.st.Mode != st.Mode || tf.st.Uid != st.Uid || tf.st.Gid != st.Gid {
		t.Fatalf("statx gave mode %o uid %d gid %d, fstat mode %o uid %d gid %d", tf.st.Mode, tf.st.Uid, tf.st.Gid, st.Mode, st.Uid, st.Gid)
	}
	if tf.mnt == 0 {
		t.Log("the kernel reports no unique mount ID (before Linux 6.8): every write asks for the file system")
		return
	}
	var fs unix.Statfs_t
	if err := unix.Fstatfs(tf.fd, &fs); err != nil {
		t.Fatal(err)
	}
	want := tf.closeCannotFail()
	closeSafe.Lock()
	got, known := closeSafe.mounts[tf.mnt]
	closeSafe.Unlock()
	if !known || got != want {
		t.Fatalf("mount %d: kept %v (known %v), want %v", tf.mnt, got, known, want)
	}
	if local := uint32(fs.Type) == unix.TMPFS_MAGIC || uint32(fs.Type) == unix.EXT4_SUPER_MAGIC; local && !want {
		t.Fatalf("file system type %#x taken for one whose close can fail", fs.Type)
	}
}

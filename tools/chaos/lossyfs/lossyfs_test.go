package lossyfs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// mount serves a fresh backing directory; it skips when FUSE cannot be
// mounted here.
func mount(t *testing.T) (l *FS, backing, mnt string) {
	t.Helper()
	if err := Available(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	backing, mnt = filepath.Join(dir, "backing"), filepath.Join(dir, "mnt")
	for _, d := range []string{backing, mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Mount(backing, mnt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Unmount(); err != nil {
			t.Error(err)
		}
	})
	return l, backing, mnt
}

func open(t *testing.T, path string, flag int) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() }) // before Unmount, if the test failed with it open
	return f
}

func writeAt(t *testing.T, f *os.File, s string, off int64) {
	t.Helper()
	if _, err := f.WriteAt([]byte(s), off); err != nil {
		t.Fatal(err)
	}
}

func fsync(t *testing.T, f *os.File) {
	t.Helper()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

func fdatasync(t *testing.T, f *os.File) {
	t.Helper()
	if err := unix.Fdatasync(int(f.Fd())); err != nil {
		t.Fatal(err)
	}
}

// syncedFile opens path with flag, writes s at offset 0 and fsyncs it:
// the content a crash goes back to, before the test's unsynced writes.
func syncedFile(t *testing.T, path string, flag int, s string) *os.File {
	t.Helper()
	f := open(t, path, flag)
	writeAt(t, f, s, 0)
	fsync(t, f)
	return f
}

func rename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func closeFile(t *testing.T, f *os.File) {
	t.Helper()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func crash(t *testing.T, l *FS) CrashReport {
	t.Helper()
	rep, err := l.Crash()
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// expect checks the content both through the mount (the kernel must not
// serve stale cached pages or sizes) and in the backing directory.
func expect(t *testing.T, want string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, []byte(want)) {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
}

func TestUnsyncedAppendIsLost(t *testing.T) {
	l, backing, mnt := mount(t)
	f := syncedFile(t, filepath.Join(mnt, "log"), os.O_CREATE|os.O_RDWR, "synced.")
	writeAt(t, f, "lost.", 7)
	writeAt(t, f, "lost too.", 12)
	closeFile(t, f)
	expect(t, "synced.lost.lost too.", filepath.Join(mnt, "log")) // cached by the kernel now
	rep := crash(t, l)
	expect(t, "synced.", filepath.Join(mnt, "log"), filepath.Join(backing, "log"))
	if rep != (CrashReport{Files: 1, BytesDropped: 14}) {
		t.Errorf("report %+v", rep)
	}
	if s := l.Stats(); s.Writes != 3 || s.Syncs != 1 {
		t.Errorf("stats %+v", s)
	}
}

func TestOverwritesRestoredInOrder(t *testing.T) {
	l, _, mnt := mount(t)
	p := filepath.Join(mnt, "f")
	f := syncedFile(t, p, os.O_CREATE|os.O_RDWR, "0123456789abcdef")
	writeAt(t, f, "BBBB", 4)      // [4,8)
	writeAt(t, f, "CCCCCCCC", 2)  // [2,10): over the first
	writeAt(t, f, "DDDDDDDDD", 9) // [9,18): over the second and past the synced size
	writeAt(t, f, "E", 0)
	closeFile(t, f)
	expect(t, "E1CCCCCCCDDDDDDDDD", p)
	rep := crash(t, l)
	expect(t, "0123456789abcdef", p)
	if rep.Files != 1 || rep.BytesDropped != 2 || rep.RangesRestored == 0 {
		t.Errorf("report %+v", rep)
	}
	if rep := crash(t, l); rep != (CrashReport{}) { // the reverted state is the synced one
		t.Errorf("second crash %+v", rep)
	}
}

func TestNeverSyncedFileIsEmpty(t *testing.T) {
	l, _, mnt := mount(t)
	f := open(t, filepath.Join(mnt, "new"), os.O_CREATE|os.O_WRONLY)
	writeAt(t, f, "never synced", 0)
	closeFile(t, f)
	crash(t, l)
	expect(t, "", filepath.Join(mnt, "new")) // the name is kept: directory operations survive
}

func TestRenamedFileRevertedUnderNewName(t *testing.T) {
	l, _, mnt := mount(t)
	f := syncedFile(t, filepath.Join(mnt, "a.tmp"), os.O_CREATE|os.O_WRONLY, "kept")
	writeAt(t, f, "+lost", 4)
	closeFile(t, f)
	rename(t, filepath.Join(mnt, "a.tmp"), filepath.Join(mnt, "a"))
	crash(t, l)
	expect(t, "kept", filepath.Join(mnt, "a"))
}

func TestTruncateRestored(t *testing.T) {
	l, _, mnt := mount(t)
	p := filepath.Join(mnt, "t")
	f := syncedFile(t, p, os.O_CREATE|os.O_RDWR, "abcdefgh")
	if err := f.Truncate(2); err != nil { // ftruncate
		t.Fatal(err)
	}
	writeAt(t, f, "XY", 4) // a hole at [2,4), then new bytes in the cut range
	closeFile(t, f)
	if err := os.Truncate(p, 1); err != nil { // truncate(2) by path
		t.Fatal(err)
	}
	closeFile(t, open(t, p, os.O_WRONLY|os.O_TRUNC)) // O_TRUNC
	crash(t, l)
	expect(t, "abcdefgh", p)
	if s := l.Stats(); s.Truncates != 3 {
		t.Errorf("stats %+v", s)
	}
}

func TestSyncsSurviveCrash(t *testing.T) {
	l, _, mnt := mount(t)
	p := filepath.Join(mnt, "s")
	f := syncedFile(t, p, os.O_CREATE|os.O_RDWR, "fsync.")
	writeAt(t, f, "FSYNC", 0) // overwrite, then fdatasync
	writeAt(t, f, "fdatasync.", 6)
	fdatasync(t, f)
	closeFile(t, f)
	if rep := crash(t, l); rep != (CrashReport{}) {
		t.Errorf("report %+v, want nothing reverted", rep)
	}
	expect(t, "FSYNC.fdatasync.", p)
}

func TestFileFromBeforeTheMount(t *testing.T) {
	l, backing, mnt := mount(t)
	if err := os.WriteFile(filepath.Join(backing, "old"), []byte("there before"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := open(t, filepath.Join(mnt, "old"), os.O_RDWR)
	writeAt(t, f, "THERE", 0)
	writeAt(t, f, " and after", 12)
	closeFile(t, f)
	crash(t, l)
	expect(t, "there before", filepath.Join(mnt, "old"))
}

// TestReusedInode: a new file that gets an unlinked file's inode number
// must not inherit its state.
func TestReusedInode(t *testing.T) {
	l, _, mnt := mount(t)
	for i := range 20 {
		p := filepath.Join(mnt, "gone")
		f := syncedFile(t, p, os.O_CREATE|os.O_WRONLY, strings.Repeat("s", 100))
		writeAt(t, f, "u", 0)
		closeFile(t, f)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		q := filepath.Join(mnt, "new"+string(rune('a'+i)))
		g := open(t, q, os.O_CREATE|os.O_WRONLY)
		writeAt(t, g, "unsynced", 0)
		closeFile(t, g)
	}
	crash(t, l)
	for i := range 20 {
		expect(t, "", filepath.Join(mnt, "new"+string(rune('a'+i))))
	}
}

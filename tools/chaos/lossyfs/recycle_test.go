package lossyfs

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRecycledPreallocatedLog does what Pebble does to a WAL: preallocate
// with fallocate(KEEP_SIZE), write records with fdatasync, then recycle
// the file under a new name and overwrite it from offset 0.
func TestRecycledPreallocatedLog(t *testing.T) {
	l, _, mnt := mount(t)
	rec := func(c byte) []byte { return bytes.Repeat([]byte{c}, 4096) }
	f := open(t, filepath.Join(mnt, "000001.log"), os.O_CREATE|os.O_RDWR)
	if err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_KEEP_SIZE, 0, 1<<20); err != nil {
		t.Fatal(err)
	}
	old := bytes.Join([][]byte{rec('a'), rec('b'), rec('c'), rec('d')}, nil)
	writeAt(t, f, string(old), 0)
	fdatasync(t, f)
	closeFile(t, f)
	rename(t, filepath.Join(mnt, "000001.log"), filepath.Join(mnt, "000002.log"))
	f = open(t, filepath.Join(mnt, "000002.log"), os.O_RDWR)
	writeAt(t, f, string(rec('1')), 0)
	fdatasync(t, f)
	writeAt(t, f, string(rec('2')), 4096)   // unsynced overwrite of old bytes
	writeAt(t, f, string(rec('5')), 4*4096) // unsynced growth
	if err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, 3*4096, 4096); err != nil {
		t.Fatal(err)
	}
	closeFile(t, f)
	rep := crash(t, l)
	want := bytes.Join([][]byte{rec('1'), rec('b'), rec('c'), rec('d')}, nil)
	expect(t, string(want), filepath.Join(mnt, "000002.log"))
	if rep.Files != 1 || rep.BytesDropped != 4096 {
		t.Errorf("report %+v", rep)
	}
	if s := l.Stats(); s.Allocates != 2 || s.Syncs != 2 {
		t.Errorf("stats %+v", s)
	}
}

// TestConcurrentWriters has several goroutines write, sync and write
// again on their own files at once (run with -race).
func TestConcurrentWriters(t *testing.T) {
	l, _, mnt := mount(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			f, err := os.Create(filepath.Join(mnt, "w"+string(rune('0'+i))))
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			for j := range 50 {
				if _, err := f.Write(bytes.Repeat([]byte{byte('a' + j%26)}, 100)); err != nil {
					t.Error(err)
				}
				if j == 24 {
					if err := f.Sync(); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	rep := crash(t, l)
	if rep.Files != 8 || rep.BytesDropped != 8*25*100 {
		t.Errorf("report %+v", rep)
	}
	for i := range 8 {
		b, err := os.ReadFile(filepath.Join(mnt, "w"+string(rune('0'+i))))
		if err != nil || len(b) != 2500 || b[2499] != 'a'+24 {
			t.Errorf("w%d: %d bytes, %v", i, len(b), err)
		}
	}
}

// TestCopyFileRange: copy_file_range (io.Copy between files uses it)
// overwrites synced bytes of the destination, which Crash restores.
func TestCopyFileRange(t *testing.T) {
	l, _, mnt := mount(t)
	src := open(t, filepath.Join(mnt, "src"), os.O_CREATE|os.O_RDWR)
	writeAt(t, src, "NEWNEWNEW", 0)
	dst := open(t, filepath.Join(mnt, "dst"), os.O_CREATE|os.O_RDWR)
	writeAt(t, dst, "old-old", 0)
	fsync(t, dst)
	offIn, offOut := int64(0), int64(4)
	if n, err := unix.CopyFileRange(int(src.Fd()), &offIn, int(dst.Fd()), &offOut, 9, 0); err != nil || n != 9 {
		t.Fatalf("copy_file_range: %d, %v", n, err)
	}
	closeFile(t, src)
	closeFile(t, dst)
	expect(t, "old-NEWNEWNEW", filepath.Join(mnt, "dst"))
	crash(t, l)
	expect(t, "old-old", filepath.Join(mnt, "dst"))
	expect(t, "", filepath.Join(mnt, "src"))
}

package raftlog_test

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	. "github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// findings collects what a state machine reported.
type findings struct {
	mu  sync.Mutex
	got []*CorruptError
}

func (f *findings) add(e *CorruptError) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, e)
}

func (f *findings) list() []*CorruptError {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*CorruptError(nil), f.got...)
}

// reopenWatched opens dir's state machine again, its findings told to f.
func reopenWatched(t *testing.T, dir string, f *findings) (*StateMachine, error) {
	t.Helper()
	s := NewStateMachine(1, 1, dir, testAppliers(), slog.New(slog.DiscardHandler))
	s.SetOnCorrupt(f.add)
	_, err := s.Open(nil)
	if err == nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, err
}

// flipAt flips the low bit of the byte at off in path (off < 0: from the
// end).
func flipAt(t *testing.T, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if off < 0 {
		off += int64(len(b))
	}
	b[off] ^= 1
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A record whose segment bytes fail the pointer's checksum is a finding:
// the read fails with ErrCorrupt naming the segment, the host is told
// once, and no read of the store is served after it.
func TestSegmentFlipIsAFinding(t *testing.T) {
	dir := t.TempDir()
	s := openSM(t, dir)
	update(t, s, 1, pushCmd(1000, "q", "p", 50))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(dir+".segments", SegmentName(0))
	flipAt(t, seg, 100)

	var f findings
	s, err := reopenWatched(t, dir, &f)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Lookup(func(v *View) (any, error) {
		return queuelog.ReadRecords(v, formatTenant, "q", "p", 0, queuelog.ReadLimits{})
	})
	if !errors.Is(err, ErrCorrupt) || !errors.Is(err, ErrStorage) {
		t.Fatalf("read over a flipped segment: %v, want ErrCorrupt", err)
	}
	got := f.list()
	if len(got) != 1 || got[0].Path != seg || !strings.Contains(got[0].Detail, "checksum mismatch") {
		t.Fatalf("findings %+v, want one naming %s", got, seg)
	}
	// Every read now answers the finding, even one the flip missed.
	_, err = s.Lookup(func(v *View) (any, error) { return nil, nil })
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a read after the finding: %v, want ErrCorrupt", err)
	}
	if len(f.list()) != 1 {
		t.Fatalf("the host was told %d times, want once", len(f.list()))
	}
}

// A table block of the store that fails its checksum is a finding, made
// by Pebble's DataCorruption event, not a panic: as the store opens or
// when a read meets the block.
func TestStoreTableFlipIsAFinding(t *testing.T) {
	dir := t.TempDir()
	s := openSM(t, dir)
	for i := range 20 {
		update(t, s, uint64(i+1), pushCmd(int64(1000+i), "q", "p", 200))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ssts := files(t, dir, ".sst") // the largest first: the one the pushes are in
	if len(ssts) == 0 {
		t.Fatal("no table after a flush")
	}
	flipAt(t, ssts[0], 64) // the first data block: the store's own keys

	var f findings
	s, err := reopenWatched(t, dir, &f)
	if err == nil {
		it, ierr := s.DB().NewIter(nil)
		if ierr != nil {
			t.Fatal(ierr)
		}
		for it.First(); it.Valid(); it.Next() {
		}
		err = it.Close()
	}
	if !errors.Is(err, ErrCorrupt) && !strings.Contains(strings.ToLower(err.Error()), "checksum") {
		t.Fatalf("reading over a flipped table: %v, want a checksum failure", err)
	}
	got := f.list()
	if len(got) != 1 || got[0].Path != ssts[0] {
		t.Fatalf("findings %+v, want one naming %s", got, ssts[0])
	}
}

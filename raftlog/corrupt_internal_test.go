package raftlog

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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
func reopenWatched(t *testing.T, dir string, f *findings) (*stateMachine, error) {
	t.Helper()
	s := newStateMachine(1, 1, dir, testAppliers(), slog.New(slog.DiscardHandler), newWatchers())
	s.onCorrupt = f.add
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
	seg := filepath.Join(dir+".segments", segmentName(0))
	flipAt(t, seg, 100)

	var f findings
	s, err := reopenWatched(t, dir, &f)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Lookup(func(v *View) (any, error) { return v.ReadRecords(formatTenant, "q", "p", 0, ReadLimits{}) })
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
		it, ierr := s.db.NewIter(nil)
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

// The marker round-trips, and the first finding stays.
func TestMarker(t *testing.T) {
	dir := t.TempDir()
	if e, err := ReadMarker(dir); e != nil || err != nil {
		t.Fatalf("no marker: %v %v", e, err)
	}
	first := &CorruptError{Path: "/d/sm/shard-1/000005.sst", Detail: "block checksum mismatch"}
	if err := WriteMarker(dir, first); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarker(dir, &CorruptError{Path: "/other", Detail: "later"}); err != nil {
		t.Fatal(err)
	}
	e, err := ReadMarker(dir)
	if err != nil || e == nil || e.Path != first.Path || e.Detail != first.Detail || !e.Marked {
		t.Fatalf("marker read back %+v %v, want %+v", e, err, first)
	}
	if !strings.Contains(e.Error(), "000005.sst: block checksum mismatch (found by an earlier run") {
		t.Fatalf("marked finding reads %q", e.Error())
	}
}

func TestLooksCorrupt(t *testing.T) {
	for msg, want := range map[string]bool{
		"pebble/table: invalid table 000012 (checksum mismatch at 0/1234)":      true,
		"pebble: corruption: /d/raft/h/00000000000000000001/logdb-3/000007.sst": true,
		"invalid commitTo index 12, lastIndex() 9":                              true,
		"shard 1 is not ready": false,
	} {
		if got := looksCorrupt(msg); got != want {
			t.Errorf("looksCorrupt(%q) = %v", msg, got)
		}
	}
	if p := corruptPath("pebble: corruption: /d/raft/logdb-3/000007.sst (block 2)", "/d/raft"); p != "/d/raft/logdb-3/000007.sst" {
		t.Errorf("corruptPath = %q", p)
	}
}

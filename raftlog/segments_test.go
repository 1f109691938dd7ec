package raftlog_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	. "github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// openSMWith opens a state machine whose segments start anew past limit
// bytes.
func openSMWith(t testing.TB, dir string, limit int64) *StateMachine {
	t.Helper()
	s := NewStateMachine(1, 1, dir, testAppliers(), slog.New(slog.DiscardHandler))
	s.SetSegLimit(limit)
	if _, err := s.Open(nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// crash stops s as SIGKILL would: nothing is flushed or synced, so the
// store keeps only what its last flush made durable (Pebble writes no WAL)
// and the segments what the OS already holds.
func crash(t testing.TB, s *StateMachine) {
	t.Helper()
	if err := s.Crash(); err != nil {
		t.Fatal(err)
	}
}

func segmentFiles(t testing.TB, s *StateMachine) []uint64 {
	t.Helper()
	ids, err := s.SegmentFiles()
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// resolveRecord decodes an 'R' value, reading a pointer's bytes from s's
// segments.
func resolveRecord(s *StateMachine, v []byte) (storefmt.StoredRecord, error) {
	b, err := s.RecordBytes(v)
	if err != nil {
		return storefmt.StoredRecord{}, err
	}
	return storefmt.DecodeRecord(b)
}

func readView(t testing.TB, s *StateMachine, fn func(v *View) (any, error)) any {
	t.Helper()
	got, err := s.Lookup(fn)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Records live in the segments: Pebble holds a pointer of a few dozen
// bytes per record, and reads give the records back as pushed.
func TestRecordsLiveInSegments(t *testing.T) {
	s := openSM(t, t.TempDir())
	update(t, s, 1, pushCmd(1000, "q", "p", 50))
	v, ok, err := s.Source().Get(storefmt.RecordKey(1, 7))
	if err != nil || !ok || v[0] != storefmt.RecordInSegment || len(v) > 40 {
		t.Fatalf("'R' value = %x (%v %v), want a pointer", v, ok, err)
	}
	b := readView(t, s, func(v *View) (any, error) {
		return queuelog.ReadRecords(v, formatTenant, "q", "p", 0, queuelog.ReadLimits{})
	}).(queuelog.Batch)
	if len(b.Records) != 50 || string(b.Records[49].Payload) != `{"n":1}` || b.Records[3].TransactionID != "tx-1000-3" {
		t.Fatalf("read back %d records: %+v", len(b.Records), b.Records[:1])
	}
	st, err := os.Stat(filepath.Join(s.Dir()+".segments", SegmentName(0)))
	if err != nil || st.Size() < 50*7 {
		t.Fatalf("segment 0: %v %v", st, err)
	}
}

// A crash loses what no flush made durable; the replay of the raft log
// from the index Open returns writes the same records again, and the
// store ends as one that never crashed, segments cut back and rewritten.
func TestCrashReplaysIntoTheSegments(t *testing.T) {
	const n = 900
	log := recordedLog(42, n)
	dir := t.TempDir()
	ref := openSMWith(t, filepath.Join(dir, "ref"), 8<<10)
	var refResults [][]byte
	applyRun(t, ref, log, 0, n, func() int { return 7 }, &refResults)
	want, _ := digest(t, ref)

	s := openSMWith(t, filepath.Join(dir, "crash"), 8<<10)
	var results [][]byte
	applyRun(t, s, log, 0, n/3, func() int { return 7 }, &results)
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	applyRun(t, s, log, n/3, 2*n/3, func() int { return 7 }, &results)
	crash(t, s)

	s = openSMWith(t, filepath.Join(dir, "crash"), 8<<10)
	from := int(s.Applied())
	if from < n/3 || from >= 2*n/3 {
		t.Fatalf("reopened at index %d: want the synced %d (the flush after it lost), not %d", from, n/3, 2*n/3)
	}
	results = results[:from]
	applyRun(t, s, log, from, n, func() int { return 7 }, &results)
	if got, _ := digest(t, s); got != want {
		t.Errorf("after the crash and replay the store digest is %x, want %x", got, want)
	}
	for i := range refResults {
		if string(results[i]) != string(refResults[i]) {
			t.Fatalf("entry %d answered differently after the replay", i+1)
		}
	}
	// Sync removed the segments trims had emptied; the ones written since
	// are the same.
	a, b := segmentFiles(t, ref), segmentFiles(t, s)
	if len(a) < 3 || len(b) == 0 || a[len(a)-1] != b[len(b)-1] {
		t.Fatalf("segments %v after the replay, %v without a crash", b, a)
	}
	// The bytes the lost entries had appended were cut, not left before
	// the replayed ones.
	_, refEnd := ref.SegmentPosition()
	_, end := s.SegmentPosition()
	if refEnd != end {
		t.Errorf("the active segment holds %d bytes without a crash, %d after it", refEnd, end)
	}
}

// Segments below every partition's first live record are removed by Sync;
// the records left read as before, across a reopen.
func TestTrimmedSegmentsAreRemoved(t *testing.T) {
	dir := t.TempDir()
	s := openSMWith(t, dir, 512)
	idx := uint64(1)
	next := func(cmd Command) []Result { r := update(t, s, idx, cmd); idx++; return r }
	next(pushCmd(1000, "q", "b", 1)) // one old record on b holds segment 0
	for i := range 200 {
		next(pushCmd(int64(2000+i), "q", "a", 1))
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	before := segmentFiles(t, s)
	if len(before) < 8 || before[0] != 0 {
		t.Fatalf("segments %v: want many from 0", before)
	}
	trim := func(partition string, until int64) {
		op := queuelog.TrimOp{Tenant: formatTenant, Queue: "q", Partition: partition, Before: until}
		next(Command{Clock: 5000 + int64(idx), Ops: []Op{op.Op()}})
	}
	trim("a", 2150) // a keeps its last 50 records
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := segmentFiles(t, s); len(got) != len(before) {
		t.Fatalf("segments %v after trimming a while b's record holds segment 0, want all %v", got, before)
	}
	trim("b", 1001)
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	after := segmentFiles(t, s)
	if len(after) >= len(before)/2 || after[len(after)-1] != before[len(before)-1] {
		t.Fatalf("segments %v after both trims, from %v: the ones below a's first live record stay", after, before)
	}
	check := func(s *StateMachine) {
		b := readView(t, s, func(v *View) (any, error) {
			return queuelog.ReadRecords(v, formatTenant, "q", "a", 150, queuelog.ReadLimits{})
		}).(queuelog.Batch)
		if len(b.Records) != 50 || b.Records[0].Ts != 2150 || b.Records[49].Ts != 2199 {
			t.Fatalf("a holds %d records from %d", len(b.Records), b.Records[0].Ts)
		}
	}
	check(s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	check(openSMWith(t, dir, 512))
}

// A record whose segment bytes changed is a storage error, not a record.
func TestSegmentChecksum(t *testing.T) {
	s := openSM(t, t.TempDir())
	update(t, s, 1, pushCmd(1000, "q", "p", 3))
	f, err := os.OpenFile(filepath.Join(s.Dir()+".segments", SegmentName(0)), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0xAA}, 5); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = s.Lookup(func(v *View) (any, error) {
		return queuelog.ReadRecords(v, formatTenant, "q", "p", 0, queuelog.ReadLimits{})
	})
	if !errors.Is(err, ErrStorage) {
		t.Fatalf("read of a damaged record: %v, want ErrStorage", err)
	}
}

// A dry run (Lookup of a dryRun: how a pop reads) reads records through
// the segments as an entry does.
func TestDryRunReadsSegments(t *testing.T) {
	s := openSM(t, t.TempDir())
	update(t, s, 1, pushCmd(1000, "q", "p", 2))
	got, err := s.Lookup(DryRun(2000, func(tx *Txn, at ApplyInfo) (any, error) {
		return queuelog.ReadRecords(tx.View(at), formatTenant, "q", "p", 0, queuelog.ReadLimits{})
	}))
	if err != nil {
		t.Fatal(err)
	}
	if b := got.(queuelog.Batch); len(b.Records) != 2 || string(b.Records[1].Payload) != `{"n":1}` {
		t.Fatalf("dry run read %+v", b)
	}
}

// A store of format 2 (records in Pebble) moves its records into the
// segments when it opens, so that a partition's records take segments in
// offset order; then removal keeps every segment a live record needs.
func TestOlderStoreMovesRecordsIntoSegments(t *testing.T) {
	dir := t.TempDir()
	s := openSMWith(t, dir, 512)
	idx := uint64(1)
	next := func(s *StateMachine, cmd Command) { update(t, s, idx, cmd); idx++ }
	next(s, pushCmd(1000, "q", "p", 3))
	for off := int64(0); off < 3; off++ { // as a store from before segments holds them
		v, _, _ := s.Source().Get(storefmt.RecordKey(1, off))
		rec, err := resolveRecord(s, v)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.DB().Set(storefmt.RecordKey(1, off), rec.Encode(), pebble.NoSync); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DB().Set(FormatKey, binary.AppendUvarint(nil, 2), pebble.NoSync); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openSMWith(t, dir, 512)
	if f, err := ReadFormat(s.DB()); err != nil || f != StoreFormat {
		t.Fatalf("format %d after open (%v), want %d", f, err, StoreFormat)
	}
	for off := int64(0); off < 3; off++ {
		if v, _, _ := s.Source().Get(storefmt.RecordKey(1, off)); len(v) == 0 || v[0] != storefmt.RecordInSegment {
			t.Fatalf("record %d is not in a segment after the upgrade: %x", off, v)
		}
	}
	for i := range 200 {
		next(s, pushCmd(int64(2000+i), "q", "p", 1))
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	b := readView(t, s, func(v *View) (any, error) {
		return queuelog.ReadRecords(v, formatTenant, "q", "p", 0, queuelog.ReadLimits{})
	}).(queuelog.Batch)
	if len(b.Records) != 203 || b.Records[0].TransactionID != "tx-1000-0" {
		t.Fatalf("read %d records after the upgrade and a Sync, want 203", len(b.Records))
	}
}

type recordUpgrader struct{ Applier }

func (recordUpgrader) UpgradeStore(tx *Txn) error {
	if _, ok, err := tx.Get([]byte("Yupgraded")); err != nil || ok {
		return err
	}
	tx.Set([]byte("Yupgraded"), []byte{1})
	r := storefmt.StoredRecord{Stamp: 1, TxID: "up", Payload: []byte("upgrade-wrote-me")}
	tx.Set(storefmt.RecordKey(99, 0), r.Encode())
	return nil
}

// A record a store upgrade writes survives a crash right after the open:
// the upgrade's batch carries the segments' length, so Open never cuts it.
func TestUpgradeRecordSurvivesCrash(t *testing.T) {
	dir := t.TempDir()
	ap := testAppliers()
	ap[queuelog.OpPush] = recordUpgrader{queuelog.Appliers()[queuelog.OpPush]}
	open := func() *StateMachine {
		s := NewStateMachine(1, 1, dir, ap, slog.New(slog.DiscardHandler))
		if _, err := s.Open(nil); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	s := open()
	update(t, s, 1, pushCmd(1000, "q", "p", 1)) // not flushed
	crash(t, s)
	s = open()
	v, ok, err := s.Source().Get(storefmt.RecordKey(99, 0))
	if err != nil || !ok {
		t.Fatalf("upgrade record: %v %v", ok, err)
	}
	if r, err := resolveRecord(s, v); err != nil || string(r.Payload) != "upgrade-wrote-me" {
		t.Fatalf("the upgrade's record after a crash: %+v %v", r, err)
	}
}

// A snapshot stream holding a record pointer (a binary that streamed its
// store raw) is refused: a pointer means nothing on another node.
func TestSnapshotWithAPointerIsRefused(t *testing.T) {
	s := openSM(t, t.TempDir())
	var b []byte
	b = append(b, SnapshotMagic...)
	k, v := storefmt.RecordKey(1, 0), storefmt.EncodePtr(storefmt.Ptr{Seg: 0, Pos: 0, N: 5}, 1, "x")
	b = binary.AppendUvarint(b, uint64(len(k)))
	b = append(b, k...)
	b = binary.AppendUvarint(b, uint64(len(v)))
	b = append(b, v...)
	b = binary.AppendUvarint(b, 0)
	if err := s.RecoverFromSnapshot(bytes.NewReader(b), make(chan struct{})); !errors.Is(err, ErrCorruptEntry) {
		t.Fatalf("recovery from a stream with a pointer: %v", err)
	}
}

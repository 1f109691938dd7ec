package raftlog_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	sm "github.com/lni/dragonboat/v4/statemachine"
	. "github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

const formatTenant = "00000000-0000-0000-0000-000000000001"

// update applies commands to s as entries from index on.
func update(t *testing.T, s *StateMachine, index uint64, cmds ...Command) []Result {
	t.Helper()
	es := make([]sm.Entry, len(cmds))
	for i := range cmds {
		es[i] = sm.Entry{Index: index + uint64(i), Cmd: AppendCommand(nil, &cmds[i])}
	}
	done, err := s.Update(es)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Result, len(done))
	for i, e := range done {
		if out[i], err = DecodeResult(e.Result.Data); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func pushCmd(clock int64, queue, partition string, n int) Command {
	op := queuelog.PushOp{Tenant: formatTenant}
	for i := range n {
		var mid [16]byte
		binary.BigEndian.PutUint64(mid[8:], uint64(clock)<<16|uint64(i))
		op.Items = append(op.Items, queuelog.PushItem{Queue: queue, Partition: partition, TransactionID: fmt.Sprintf("tx-%d-%d", clock, i),
			MessageID: mid, Dedup: true, Payload: []byte(`{"n":1}`)})
	}
	return Command{Clock: clock, Ops: []Op{op.Op()}}
}

// TestNamesStoredOnce: however many records and pushes a partition gets,
// its name is in the store twice (its 'P' key and its 'C' entry) and its
// queue's three times (the 'Q', 'P' and 'C' keys): never per record or push.
func TestNamesStoredOnce(t *testing.T) {
	s := openSM(t, t.TempDir())
	queue, partition := strings.Repeat("q", 256), strings.Repeat("p", 1024)
	var cmds []Command
	for i := range 50 {
		cmds = append(cmds, pushCmd(int64(1000+i), queue, partition, 20))
	}
	for _, r := range update(t, s, 1, cmds...) {
		if !r.Applied() {
			t.Fatalf("push aborted: %q", r.Ops)
		}
	}
	it, err := s.DB().NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var pn, qn, records int
	for it.First(); it.Valid(); it.Next() {
		kv := append(append([]byte(nil), it.Key()...), it.Value()...)
		pn += bytes.Count(kv, []byte(partition))
		qn += bytes.Count(kv, []byte(queue))
		if it.Key()[0] == storefmt.PrefixRecord {
			records++
		}
	}
	if records != 1000 {
		t.Fatalf("%d records stored", records)
	}
	if pn != 2 {
		t.Fatalf("the partition's name is stored %d times, want 2 ('P' key, 'C' entry)", pn)
	}
	if qn != 3 { // 'Q', 'P' and 'C' keys
		t.Fatalf("the queue's name is stored %d times, want 3", qn)
	}
}

// TestUpgradeFormat1 opens a store written in format 1 ('P' keys holding
// the partition meta, 'C' keys the name) and reads it through the new
// layout, then pushes on.
func TestUpgradeFormat1(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sm")
	db, err := pebble.Open(dir, PebbleOptions(func() {}))
	if err != nil {
		t.Fatal(err)
	}
	m := storefmt.PartitionMeta{Seq: 1, UID: 7, NextOffset: 2, LogStart: 1, LastWrite: 500, Created: 400}
	m.ID[0] = 9
	rec := func(off int64) []byte {
		r := storefmt.StoredRecord{Stamp: 400 + off*100, TxID: "tx" + string(rune('0'+off)), Payload: []byte(`"v"`)}
		return r.Encode()
	}
	q := storefmt.QueueMeta{Created: 400, Partitions: 1, Options: []byte(`{}`)}
	for k, v := range map[string][]byte{
		string(storefmt.QueueKey(formatTenant, "orders")):             q.Encode(),
		string(storefmt.PartitionKey(formatTenant, "orders", "eu/1")): m.Encode(),
		string(storefmt.CreatedKey(formatTenant, "orders", 1)):        []byte("eu/1"),
		string(storefmt.RecordKey(7, 1)):                              rec(1),
		string(storefmt.NextUIDKey):                                   binary.BigEndian.AppendUint64(nil, 8),
		string(MetaKey):                                               MetaValue(3, 500),
	} {
		if err := db.Set([]byte(k), v, pebble.NoSync); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Flush(); err != nil { // no WAL: a write is durable once flushed
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for round := range 2 { // the second open finds format 2 and changes nothing
		s := NewStateMachine(1, 1, dir, testAppliers(), nil)
		applied, err := s.Open(nil)
		if err != nil || applied != uint64(3+round) {
			t.Fatalf("round %d: open: %d %v", round, applied, err)
		}
		if f, err := ReadFormat(s.DB()); err != nil || f != StoreFormat {
			t.Fatalf("round %d: format %d %v", round, f, err)
		}
		v := s.View()
		b, err := queuelog.ReadRecords(v, formatTenant, "orders", "eu/1", 1, queuelog.ReadLimits{MaxRecords: 1})
		if err != nil || len(b.Records) != 1 || b.HighWatermark != int64(2+round) || b.LogStart != 1 || b.Records[0].TransactionID != "tx1" {
			t.Fatalf("round %d: read %+v %v", round, b, err)
		}
		parts, _, err := queuelog.PartitionsChanged(v, formatTenant, "orders", math.MinInt64, 0, 10)
		if err != nil || len(parts) != 1 || parts[0].Name != "eu/1" || parts[0].UID != 7 || parts[0].LastOffset != int64(1+round) {
			t.Fatalf("round %d: partitions %+v %v", round, parts, err)
		}
		if round == 0 {
			res := update(t, s, 4, pushCmd(600, "orders", "eu/1", 1))
			if a, err := queuelog.DecodePushAnswers(res[0].Ops[0]); err != nil || len(a) != 1 || a[0].Offset != 2 || a[0].PartitionID != m.ID {
				t.Fatalf("push after the upgrade: %+v %v", a, err)
			}
		}
		s.Close()
	}
}

// TestNewerFormatRefused: a store of a format this code does not know is
// not opened (an older broker never misreads a newer store).
func TestNewerFormatRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sm")
	s := openSM(t, dir)
	if err := s.DB().Set(FormatKey, binary.AppendUvarint(nil, StoreFormat+1), pebble.NoSync); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2 := NewStateMachine(1, 1, dir, testAppliers(), nil)
	if _, err := s2.Open(nil); err == nil || !strings.Contains(err.Error(), "newer than this broker's") {
		t.Fatalf("open of format %d: %v", StoreFormat+1, err)
	}
}

// TestStoredDedupWindowSaturates: options an older broker stored with a
// dedup window that µs cannot hold (9223372036854775807 s) read as the
// option's bound, so a retry inside it is still a duplicate; before, the
// window overflowed to a negative span and deduplicated nothing.
func TestStoredDedupWindowSaturates(t *testing.T) {
	for _, window := range []string{"9223372036854775807", "9223372036855", "1e400"} {
		s := openSM(t, t.TempDir())
		q := storefmt.QueueMeta{Created: 1, Options: []byte(`{"dedupWindowSeconds":` + window + `}`)}
		if err := s.DB().Set(storefmt.QueueKey(formatTenant, "q1"), q.Encode(), pebble.NoSync); err != nil {
			t.Fatal(err)
		}
		once := pushCmd(1000, "q1", "p", 1)
		res := update(t, s, 1, once, Command{Clock: 2000, Ops: once.Ops})
		a, err := queuelog.DecodePushAnswers(res[1].Ops[0])
		if err != nil || !a[0].Duplicate || a[0].Offset != 0 {
			t.Fatalf("window %s: the retry answered %+v %v, want a duplicate of offset 0", window, a, err)
		}
	}
}

// dedupEntries counts the dedup entries in s's store.
func dedupEntries(t *testing.T, s *StateMachine) int {
	t.Helper()
	n := 0
	if err := s.Source().Scan([]byte{storefmt.PrefixDedup}, []byte{storefmt.PrefixDedup + 1}, func(_, _ []byte) bool { n++; return true }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDedupSweep: the dedup entries of records out of the window are
// deleted by a sweep, those inside it kept, and a sweep stops at its
// limit and goes on from there; an entry a later push of the same id
// owns is not the old record's to delete.
func TestDedupSweep(t *testing.T) {
	s := openSM(t, t.TempDir())
	conf := Command{Clock: 1, Ops: []Op{(&queuelog.ConfigureOp{Tenant: formatTenant, Queue: "q", Options: []byte(`{"dedupWindowSeconds":10}`)}).Op()}}
	cmds := []Command{conf}
	for i := range 6 { // one push a second, from 100 s on
		cmds = append(cmds, pushCmd(int64(100+i)*1_000_000, "q", "p", 2))
	}
	update(t, s, 1, cmds...)
	if n := dedupEntries(t, s); n != 12 {
		t.Fatalf("%d dedup entries, want 12", n)
	}
	sweep := func(index uint64, at int64, limit int) uint64 {
		t.Helper()
		res := update(t, s, index, Command{Clock: at, Ops: []Op{(&queuelog.DedupSweepOp{Tenant: formatTenant, Queue: "q", Partition: "p", Limit: limit}).Op()}})
		if !res[0].Applied() {
			t.Fatalf("sweep: %q", res[0].Ops)
		}
		n, _ := binary.Uvarint(res[0].Ops[0])
		return n
	}
	if n := sweep(10, 105_000_000, 100); n != 0 {
		t.Fatalf("a sweep inside the window deleted %d", n)
	}
	// At 112.5 s the pushes of 100, 101 and 102 s are out of the window:
	// 6 entries, 4 of them with a limit of 4, then the other 2.
	if n := sweep(11, 112_500_000, 4); n != 4 {
		t.Fatalf("a sweep of limit 4 deleted %d", n)
	}
	if n := sweep(12, 112_600_000, 100); n != 2 {
		t.Fatalf("the next sweep deleted %d, want 2", n)
	}
	if n := dedupEntries(t, s); n != 6 {
		t.Fatalf("%d dedup entries left, want 6", n)
	}
	// A push of an id whose window passed writes a new entry, the later
	// record's: a sweep walking the old record leaves it.
	again := pushCmd(103*1_000_000, "q", "p", 1) // the ids of the push of 103 s
	res := update(t, s, 13, Command{Clock: 120_000_000, Ops: again.Ops})
	if a, _ := queuelog.DecodePushAnswers(res[0].Ops[0]); a[0].Duplicate {
		t.Fatalf("a push after the window was a duplicate")
	}
	if n := sweep(14, 114_000_000+10_000_000, 100); n != 5 { // 103 s's other entry, 104 and 105 s's; not the new one
		t.Fatalf("the sweep deleted %d, want 5", n)
	}
	if n := dedupEntries(t, s); n != 1 {
		t.Fatalf("%d dedup entries left, want the new push's 1", n)
	}
}

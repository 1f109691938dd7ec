package raftlog_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	. "github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// pushAnswers decodes the push answers of each result, one push op each.
func pushAnswers(t *testing.T, results []Result) [][]queuelog.PushAnswer {
	t.Helper()
	var out [][]queuelog.PushAnswer
	for _, r := range results {
		if !r.Applied() {
			t.Fatalf("push aborted: %q", r.Ops)
		}
		a, err := queuelog.DecodePushAnswers(r.Ops[0])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// retry is cmd again, proposed at clock: the same transaction ids.
func retry(cmd Command, clock int64) Command { return Command{Clock: clock, Ops: cmd.Ops} }

// sameOffsets fails the test unless every answer of again is a duplicate
// naming the offset and message id of first's.
func sameOffsets(t *testing.T, what string, first, again []queuelog.PushAnswer) {
	t.Helper()
	for i, a := range again {
		if !a.Duplicate || a.Offset != first[i].Offset || a.MessageID != first[i].MessageID {
			t.Fatalf("%s: item %d answered %+v, the original %+v", what, i, a, first[i])
		}
	}
}

// waitBuild waits for the build in flight, if any, to finish (the next
// Update swaps it in).
func waitBuild(s *StateMachine) { s.Dedup().WaitBuild() }

// built waits for the build in flight and swaps it in, as the next
// Update would.
func built(t *testing.T, s *StateMachine) {
	t.Helper()
	waitBuild(s)
	if err := s.Dedup().Swap(); err != nil {
		t.Fatal(err)
	}
	if !s.Dedup().Built() {
		t.Fatal("no filter after a build")
	}
}

// TestDedupFilterAvoidsReads: pushes of new transaction ids read nothing
// (all but the filter's false positives), retries read and are answered
// exactly, and so is a copy pushed by a later entry of the same Update.
func TestDedupFilterAvoidsReads(t *testing.T) {
	s := openSM(t, t.TempDir())
	built(t, s)
	push := pushCmd(1000, "q", "p", 200)
	first := pushAnswers(t, update(t, s, 1, push))[0]
	if st := s.DedupStats(); st.Avoided < 190 || st.Avoided+st.Read != 200 || st.Builds != 1 || st.Capacity != DefaultFilterKeys {
		t.Fatalf("200 new ids: %+v", st)
	}
	before := s.DedupStats()
	sameOffsets(t, "retry", first, pushAnswers(t, update(t, s, 2, retry(push, 2000)))[0])
	if st := s.DedupStats(); st.Read-before.Read != 200 || st.Missed != before.Missed {
		t.Fatalf("200 retries: %+v, before %+v", st, before)
	}
	// One Update: the second entry sees the first's key through the batch.
	x := pushCmd(3000, "q", "p", 1)
	got := pushAnswers(t, update(t, s, 3, x, retry(x, 3001)))
	if got[0][0].Duplicate || !got[1][0].Duplicate || got[1][0].Offset != got[0][0].Offset {
		t.Fatalf("a copy in a later entry of the same Update: %+v then %+v", got[0][0], got[1][0])
	}
}

// TestDedupFilterRebuiltOnOpen: a store opened again builds its filter
// from the dedup keys it holds, and a retry gets the original offsets.
func TestDedupFilterRebuiltOnOpen(t *testing.T) {
	dir := t.TempDir()
	s := openSM(t, dir)
	push := pushCmd(1000, "q", "p", 50)
	first := pushAnswers(t, update(t, s, 1, push))[0]
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openSM(t, dir)
	built(t, s)
	sameOffsets(t, "retry after a restart", first, pushAnswers(t, update(t, s, 2, retry(push, 2000)))[0])
	if st := s.DedupStats(); st.Builds != 1 || st.Read != 50 || st.Missed != 0 {
		t.Fatalf("after a restart: %+v", st)
	}
	pushAnswers(t, update(t, s, 3, pushCmd(3000, "q", "p", 50)))
	if st := s.DedupStats(); st.Avoided < 45 {
		t.Fatalf("new ids after a restart read the store: %+v", st)
	}
}

// TestDedupFilterAfterSnapshot: a state machine that recovers from a
// snapshot (while a rebuild of its own filter is in flight) builds the
// filter from the snapshot's keys: a retry of a record it holds only from
// the snapshot is a duplicate, with the original offset.
func TestDedupFilterAfterSnapshot(t *testing.T) {
	dir := t.TempDir()
	src := openSM(t, filepath.Join(dir, "src"))
	push := pushCmd(1000, "q", "p", 50)
	first := pushAnswers(t, update(t, src, 1, push))[0]
	var buf bytes.Buffer
	pinned, err := src.PrepareSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := src.SaveSnapshot(pinned, &buf, make(chan struct{})); err != nil {
		t.Fatal(err)
	}

	dst := openSM(t, filepath.Join(dir, "dst"))
	built(t, dst)
	dst.Dedup().SetMinKeys(8)
	dst.Dedup().Hold() // held: still in flight at the recovery
	dst.RebuildDedup()
	dst.Dedup().Release()
	built(t, dst)
	dst.Dedup().Hold()
	update(t, dst, 1, pushCmd(500, "other", "p", 20)) // 20 keys > 8: a rebuild starts
	if !dst.Dedup().Building() {
		t.Fatal("no rebuild in flight")
	}
	if err := dst.RecoverFromSnapshot(&buf, make(chan struct{})); err != nil {
		t.Fatal(err)
	}
	sameOffsets(t, "retry before the build is in", first, pushAnswers(t, update(t, dst, 2, retry(push, 2000)))[0])
	dst.Dedup().Release()
	built(t, dst)
	sameOffsets(t, "retry after a snapshot", first, pushAnswers(t, update(t, dst, 3, retry(push, 3000)))[0])
	if st := dst.DedupStats(); st.Builds != 3 || st.Capacity != 100 || st.Missed != 0 {
		t.Fatalf("after the snapshot: %+v", st)
	}
}

// TestDedupFilterCapacityRebuild: past its capacity the filter is rebuilt
// from a snapshot on another goroutine, sized for twice the live keys; the
// keys pushed while it is built are added when it is swapped in, so every
// retry, before and after the swap, gets its original offset.
func TestDedupFilterCapacityRebuild(t *testing.T) {
	s := openSM(t, t.TempDir())
	built(t, s)
	s.Dedup().SetMinKeys(16)
	s.RebuildDedup()
	built(t, s)
	s.Dedup().Hold()
	var pushes []Command
	var firsts [][]queuelog.PushAnswer
	index := uint64(1)
	pushAll := func(n int) {
		for range n {
			pushes = append(pushes, pushCmd(int64(1000+index), "q", fmt.Sprint("p", index%3), 4))
			firsts = append(firsts, pushAnswers(t, update(t, s, index, pushes[len(pushes)-1]))[0])
			index++
		}
	}
	retryAll := func(what string) {
		t.Helper()
		for i, p := range pushes {
			sameOffsets(t, fmt.Sprintf("%s: push %d", what, i), firsts[i], pushAnswers(t, update(t, s, index, retry(p, int64(5000+index))))[0])
			index++
		}
	}
	pushAll(5) // 20 keys in a filter for 16: a rebuild starts
	if !s.Dedup().Building() {
		t.Fatal("no rebuild in flight past the capacity")
	}
	pushAll(3) // while it is held: pending, added at the swap
	retryAll("during the rebuild")
	if st := s.DedupStats(); st.Builds != 2 || st.Capacity != 16 {
		t.Fatalf("a held rebuild was swapped in: %+v", st)
	}
	s.Dedup().Release()
	waitBuild(s)
	retryAll("after the rebuild") // the first Update swaps it in
	st := s.DedupStats()
	if st.Builds != 3 || st.Capacity != 40 || s.Dedup().Building() || s.Dedup().Added() != 32 {
		t.Fatalf("after one rebuild: %+v, %d keys added", st, s.Dedup().Added())
	}
}

// TestDedupFilterSweptKeys: a key a sweep deleted is still in the filter
// until it is rebuilt; a push of its id reads, finds nothing, and appends
// (it is no duplicate). A rebuild, from the live keys only, forgets it.
func TestDedupFilterSweptKeys(t *testing.T) {
	s := openSM(t, t.TempDir())
	built(t, s)
	conf := Command{Clock: 1, Ops: []Op{(&queuelog.ConfigureOp{Tenant: formatTenant, Queue: "q", Options: []byte(`{"dedupWindowSeconds":10}`)}).Op()}}
	push := pushCmd(100_000_000, "q", "p", 30)
	update(t, s, 1, conf, push)
	sweep := Command{Clock: 111_000_000, Ops: []Op{(&queuelog.DedupSweepOp{Tenant: formatTenant, Queue: "q", Partition: "p", Limit: 100}).Op()}}
	update(t, s, 3, sweep)
	if n := dedupEntries(t, s); n != 0 {
		t.Fatalf("%d dedup entries after the sweep", n)
	}
	before := s.DedupStats()
	for i, a := range pushAnswers(t, update(t, s, 4, retry(push, 112_000_000)))[0] {
		if a.Duplicate || a.Offset != int64(30+i) {
			t.Fatalf("a swept id: item %d answered %+v", i, a)
		}
	}
	if st := s.DedupStats(); st.Read-before.Read != 30 || st.Missed-before.Missed != 30 {
		t.Fatalf("swept ids read %d and missed %d; want 30 and 30", st.Read-before.Read, st.Missed-before.Missed)
	}
	// Sweep the new entries too, then rebuild: the ids are gone from it.
	update(t, s, 5, Command{Clock: 123_000_000, Ops: sweep.Ops})
	s.RebuildDedup()
	built(t, s)
	before = s.DedupStats()
	update(t, s, 6, retry(push, 124_000_000))
	if st := s.DedupStats(); st.Avoided-before.Avoided < 27 {
		t.Fatalf("after a rebuild, swept ids avoided %d reads of 30", st.Avoided-before.Avoided)
	}
}

package queuelog_test

import (
	"fmt"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// pushAt pushes items as one entry proposed with the given clock, so its
// stamp is max(clock, previous stamp + 1) whatever the wall clock says.
func pushAt(t testing.TB, s *raftlog.Shard, clock int64, items ...queuelog.PushItem) ([]queuelog.PushAnswer, int64) {
	t.Helper()
	op := queuelog.PushOp{Tenant: tenant, Items: items}
	res := propose(t, s, raftlog.Command{Clock: clock, Ops: []raftlog.Op{op.Op()}})
	if !res.Applied() {
		t.Fatalf("push at %d: aborted: %q", clock, res.Ops)
	}
	answers, err := queuelog.DecodePushAnswers(res.Ops[0])
	if err != nil {
		t.Fatal(err)
	}
	return answers, res.Stamp
}

func TestDedup(t *testing.T) {
	_, s := started(t, 1)

	first, _ := push(t, s, item("q", "p", "a", []byte("A")), item("q", "p", "b", []byte("B")))
	again := item("q", "p", "a", []byte("another payload"))
	again.MessageID = [16]byte{'n', 'e', 'w'}
	ans, _ := push(t, s, again)
	checkAnswer(t, "repeat of a", ans[0], true, 0, first[0].MessageID)
	if ans[0].PartitionID != first[0].PartitionID {
		t.Fatalf("a duplicate answers partition %x, the original %x", ans[0].PartitionID, first[0].PartitionID)
	}
	if b := readAll(t, s, "q", "p"); b.HighWatermark != 2 || len(b.Records) != 2 || string(b.Records[0].Payload) != "A" {
		t.Fatalf("a duplicate wrote: %+v", b)
	}

	// Two copies inside one push: the first appends, the second answers it.
	c1, c2 := item("q", "p", "c", []byte("C1")), item("q", "p", "c", []byte("C2"))
	c2.MessageID = [16]byte{'c', '2'}
	ans, _ = push(t, s, c1, c2)
	checkAnswer(t, "first copy", ans[0], false, 2, c1.MessageID)
	checkAnswer(t, "second copy", ans[1], true, 2, c1.MessageID)
	if b := readAll(t, s, "q", "p"); b.HighWatermark != 3 || string(b.Records[2].Payload) != "C1" {
		t.Fatalf("after a push of two copies: %+v", b)
	}

	// Deduplication is per partition, and only for items that ask for it;
	// an item without it leaves the stored id alone.
	other := item("q", "p2", "a", []byte("A2"))
	ans, _ = push(t, s, other)
	checkAnswer(t, "a in another partition", ans[0], false, 0, other.MessageID)
	plain := item("q", "p", "a", []byte("plain"))
	plain.Dedup = false
	ans, _ = push(t, s, plain)
	checkAnswer(t, "a without dedup", ans[0], false, 3, plain.MessageID)
	ans, _ = push(t, s, again)
	checkAnswer(t, "a again", ans[0], true, 0, first[0].MessageID)
}

// TestDedupWindow judges the window on the broker clock: a repeat stamped
// less than dedupWindowSeconds after the original is a duplicate, one
// stamped later appends, and window 0 turns deduplication off.
func TestDedupWindow(t *testing.T) {
	_, s := started(t, 1)
	const window = 5_000_000 // µs
	configure(t, s, "w", `{"dedupWindowSeconds":5}`, false)

	x := item("w", "p", "x", []byte("X"))
	ans, t0 := push(t, s, x)
	checkAnswer(t, "x", ans[0], false, 0, x.MessageID)
	ans, _ = pushAt(t, s, t0+window-1, x)
	checkAnswer(t, "x at the window's last µs", ans[0], true, 0, x.MessageID)
	ans, stamp := pushAt(t, s, t0+window, x)
	checkAnswer(t, "x one window later", ans[0], false, 1, x.MessageID)
	ans, _ = push(t, s, x)
	checkAnswer(t, "x after it appended again", ans[0], true, 1, x.MessageID)

	// An empty command moves the broker clock; the next push, proposed with
	// the wall clock, is stamped after it, out of the window.
	later := propose(t, s, raftlog.Command{Clock: stamp + 2*window})
	if later.Stamp != stamp+2*window || len(later.Ops) != 0 || !later.Applied() {
		t.Fatalf("tick: %+v", later)
	}
	ans, after := push(t, s, x)
	checkAnswer(t, "x after the tick", ans[0], false, 2, x.MessageID)
	if after <= later.Stamp {
		t.Fatalf("push stamped %d, not after the tick's %d", after, later.Stamp)
	}

	// Window 0: every copy appends, and nothing is remembered for later.
	configure(t, s, "z", `{"dedupWindowSeconds":0}`, false)
	z := item("z", "p", "z", []byte("Z"))
	for off := range int64(2) {
		ans, _ = push(t, s, z)
		checkAnswer(t, fmt.Sprintf("z copy %d with window 0", off), ans[0], false, off, z.MessageID)
	}
	configure(t, s, "z", `{"dedupWindowSeconds":null}`, false) // back to the default
	ans, _ = push(t, s, z)
	checkAnswer(t, "z with the default window", ans[0], false, 2, z.MessageID)
	ans, _ = push(t, s, z)
	checkAnswer(t, "z again", ans[0], true, 2, z.MessageID)
}

// TestDedupAcrossLeaderChange: a retry through a new leader gets the
// original offsets and appends nothing, and the old leader, started again,
// converges on the same state.
func TestDedupAcrossLeaderChange(t *testing.T) {
	c := raftlogtest.New(t, 3, nil)
	c.StartAll()
	oldID, old := c.Leader()
	var items []queuelog.PushItem
	for i := range 10 {
		items = append(items, item("q", fmt.Sprintf("p%d", i%2), fmt.Sprintf("r%d", i), []byte(fmt.Sprintf(`{"i":%d}`, i))))
	}
	first, _ := push(t, old, items...)

	c.Stop(oldID)
	newID, leader := c.Leader()
	if newID == oldID {
		t.Fatalf("node %d still leads after it stopped", newID)
	}
	again, _ := push(t, leader, items...)
	for i, a := range again {
		checkAnswer(t, fmt.Sprintf("retry of %s", items[i].TransactionID), a, true, first[i].Offset, first[i].MessageID)
	}
	for _, p := range []string{"p0", "p1"} {
		if b := readAll(t, leader, "q", p); b.HighWatermark != 5 {
			t.Fatalf("%s: high watermark %d after the retry, want 5", p, b.HighWatermark)
		}
	}

	restarted := c.Start(oldID)
	next, _ := push(t, leader, item("q", "p0", "after", []byte("after")))
	checkAnswer(t, "after", next[0], false, 5, mid("after"))
	waitRecords(t, restarted, tenant, "q", "p0", 5)
	again, _ = push(t, restarted, items...) // forwarded to the leader
	for i, a := range again {
		checkAnswer(t, fmt.Sprintf("retry of %s through node %d", items[i].TransactionID, oldID), a, true, first[i].Offset, first[i].MessageID)
	}
	barrier(t, c)
	want := dump(t, leader)
	for id, s := range c.Shards {
		sameDump(t, fmt.Sprintf("node %d against the leader %d", id, newID), dump(t, s), want)
	}
}

// TestStrictDuplicateRollsTheEntryBack: a strict item whose transactionId
// is a duplicate rolls back its whole entry, the other items with it, and
// answers which item and the original's offset.
func TestStrictDuplicateRollsTheEntryBack(t *testing.T) {
	_, s := started(t, 1)
	first, _ := push(t, s, item("q", "p", "a", []byte("A")))

	fresh, dup := item("q", "p", "b", []byte("B")), item("q", "p", "a", []byte("A again"))
	fresh.Strict, dup.Strict = true, true
	op := queuelog.PushOp{Tenant: tenant, Items: []queuelog.PushItem{fresh, dup}}
	res := propose(t, s, raftlog.Command{Ops: []raftlog.Op{op.Op()}})
	if res.Applied() || res.Aborted != 0 {
		t.Fatalf("a strict duplicate applied: %+v", res)
	}
	i, orig, err := queuelog.DecodePushRollback(res.Ops[0])
	if err != nil || i != 1 || !orig.Duplicate || orig.Offset != 0 || orig.MessageID != first[0].MessageID {
		t.Fatalf("rollback answer: item %d %+v %v", i, orig, err)
	}
	if b := readAll(t, s, "q", "p"); b.HighWatermark != 1 {
		t.Fatalf("the rolled-back entry wrote: %+v", b)
	}
	// Without a duplicate the strict items apply.
	ans, _ := push(t, s, fresh)
	checkAnswer(t, "strict new item", ans[0], false, 1, fresh.MessageID)
}

// TestTransactionOffset: the dedup index answers the offset of a
// transaction id on a partition, by its UID, and nothing for an id pushed
// without deduplication or never pushed there.
func TestTransactionOffset(t *testing.T) {
	_, s := started(t, 1)
	plain := item("q", "p", "plain", []byte("P"))
	plain.Dedup = false
	push(t, s, item("q", "p", "a", []byte("A")), plain, item("q", "p", "b", []byte("B")), item("q", "p2", "c", []byte("C")))
	got, err := s.LocalRead(func(v *raftlog.View) (any, error) {
		pi, err := queuelog.Partition(v, tenant, "q", "p")
		if err != nil {
			return nil, err
		}
		var out []string
		for _, id := range []string{"a", "b", "plain", "c", "never"} {
			off, ok, err := queuelog.TransactionOffset(v, pi.UID, id)
			if err != nil {
				return nil, err
			}
			out = append(out, fmt.Sprintf("%s:%d:%v", id, off, ok))
		}
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[a:0:true b:2:true plain:0:false c:0:false never:0:false]"; fmt.Sprint(got) != want {
		t.Fatalf("offsets %v, want %s", got, want)
	}
}

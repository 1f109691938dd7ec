package consume_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

func TestPopDeliversInOrderAndHoldsThePartition(t *testing.T) {
	e := startWith(t, "q", "p", 10)
	first := e.pop(consume.PopRequest{Queue: "q", Batch: 4})
	equal(t, "first pop", txids(first), seq("p", 0, 4, 1))
	if first.LeaseID == "" || first.End <= 0 {
		t.Fatalf("first pop has no lease: %+v", first)
	}
	// The partition is leased: another consumer of the group gets nothing.
	if got := e.pop(consume.PopRequest{Queue: "q", Batch: 4}); len(got.Parts) != 0 {
		t.Fatalf("second consumer got %v while the partition was leased", txids(got))
	}
	answers := e.ack(first, "", consume.StatusCompleted, true)
	for i, a := range answers {
		if !a.OK || a.Released != (i == len(answers)-1) {
			t.Fatalf("ack %d: %+v (only the last releases the lease)", i, a)
		}
	}
	equal(t, "after the acks", txids(e.pop(consume.PopRequest{Queue: "q", Batch: 100})), seq("p", 4, 10, 1))
}

func TestAckedMessagesAreNeverDeliveredAgainAndAckingAgainIsANoop(t *testing.T) {
	e := startWith(t, "q", "p", 3)
	res := e.pop(consume.PopRequest{Queue: "q", Batch: 3})
	for _, a := range e.ack(res, "", consume.StatusCompleted, true) {
		if !a.OK || a.Noop {
			t.Fatalf("ack: %+v (an ack that settles carries no noop)", a)
		}
	}
	for _, fenced := range []bool{true, false} {
		for _, a := range e.ack(res, "", consume.StatusCompleted, fenced) {
			if !a.OK || !a.Noop || a.Released {
				t.Fatalf("second ack (fenced %v) answered %+v, want a noop", fenced, a)
			}
		}
		for _, st := range []byte{consume.StatusFailed, consume.StatusRetry, consume.StatusDLQ} {
			for _, a := range e.ack(res, "", st, fenced) {
				if a.OK || !strings.Contains(a.Error, "already committed") {
					t.Fatalf("a nack (status %d, fenced %v) of a committed message answered %+v, want a refusal", st, fenced, a)
				}
			}
		}
	}
	if got := e.pop(consume.PopRequest{Queue: "q", Batch: 10}); len(got.Parts) != 0 {
		t.Fatalf("acked messages delivered again: %v", txids(got))
	}
	if n := len(e.letters("q", "__QUEUE_MODE__")); n != 0 {
		t.Fatalf("a refused dlq ack filed %d letters", n)
	}
}

func TestAnAckFencedByAnotherLeaseIsRefused(t *testing.T) {
	e := startWith(t, "q", "p", 1)
	res := e.pop(consume.PopRequest{Queue: "q"})
	res.LeaseID = "not-the-lease"
	a := e.ack(res, "", consume.StatusCompleted, true)
	if a[0].OK || !strings.Contains(a[0].Error, "not-the-lease") {
		t.Fatalf("ack with a foreign lease: %+v", a[0])
	}
}

// sub is the messages of res at the given indexes of its one partition.
func sub(res consume.PopResult, idx ...int) consume.PopResult {
	out := res
	p := res.Parts[0]
	out.Parts = []consume.Popped{{Partition: p.Partition, UID: p.UID}}
	for _, i := range idx {
		out.Parts[0].Messages = append(out.Parts[0].Messages, p.Messages[i])
	}
	return out
}

func TestAnAckCommitsEveryEarlierMessageOfItsLease(t *testing.T) {
	e := startWith(t, "q", "p", 5)
	res := e.pop(consume.PopRequest{Queue: "q", Batch: 3})
	if a := e.ack(sub(res, 1), "", consume.StatusCompleted, true); !a[0].OK || a[0].Noop || a[0].Released {
		t.Fatalf("ack of p-1: %+v (p-2 is still held)", a[0])
	}
	// p-0 was committed with p-1: acking it now changes nothing.
	if a := e.ack(sub(res, 0), "", consume.StatusCompleted, true); !a[0].OK || !a[0].Noop {
		t.Fatalf("ack of p-0 after p-1: %+v, want a noop", a[0])
	}
	if a := e.ack(sub(res, 2), "", consume.StatusCompleted, true); !a[0].OK || a[0].Noop || !a[0].Released {
		t.Fatalf("ack of p-2: %+v (the last the lease held)", a[0])
	}
	equal(t, "after the commit", txids(e.pop(consume.PopRequest{Queue: "q", Batch: 10})), seq("p", 3, 5, 1))
}

func TestANackClampsTheCallsCommitAndReleasesTheLease(t *testing.T) {
	for _, order := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}} {
		e := start(t)
		e.configure("q", map[string]any{"retryLimit": 0, "retryDelay": 0})
		e.push("q", "p", 0, 5)
		res := e.pop(consume.PopRequest{Queue: "q", Batch: 4})
		// One call: completed p-0, retry p-1, completed p-2 and p-3, in
		// the given order. The retry clamps the commit below p-1.
		status := []byte{consume.StatusCompleted, consume.StatusRetry, consume.StatusCompleted, consume.StatusCompleted}
		var items []consume.AckItem
		for _, i := range order {
			m := res.Parts[0].Messages[i]
			items = append(items, consume.AckItem{TransactionID: m.TransactionID, PartitionUID: res.Parts[0].UID,
				Group: "__QUEUE_MODE__", LeaseID: res.LeaseID, Status: status[i]})
		}
		got, err := e.c.Ack(e.ctx(), tenant, items)
		if err != nil {
			t.Fatal(err)
		}
		for j, i := range order {
			a := got[j]
			switch i {
			case 0:
				if !a.OK || a.Noop {
					t.Fatalf("order %v: completed p-0 below the nack: %+v", order, a)
				}
			case 1:
				if !a.OK || !a.Released || a.DLQ {
					t.Fatalf("order %v: retry p-1: %+v (releases the lease, charges nothing)", order, a)
				}
			default:
				if a.OK || !strings.Contains(a.Error, "not committed") || !strings.Contains(a.Error, "offset 1") {
					t.Fatalf("order %v: completed p-%d past the nack: %+v, want a refusal naming offset 1", order, i, a)
				}
			}
		}
		// At once, with no lease expiry: p-1 and everything after it again.
		again := e.pop(consume.PopRequest{Queue: "q", Batch: 10})
		equal(t, "after the nack", txids(again), []string{"p-1#2", "p-2#2", "p-3#2", "p-4#1"})
		// retryLimit 0 and still no DLQ: a retry charged nothing. A failed
		// ack now is past the limit: the message is settled into nothing.
		if n := len(e.letters("q", "__QUEUE_MODE__")); n != 0 {
			t.Fatalf("order %v: %d dead letters after a retry", order, n)
		}
	}
}

func TestAFailedAckReturnsTheRestOfTheLeaseAtOnce(t *testing.T) {
	e := start(t)
	e.configure("q", map[string]any{"retryLimit": 3, "retryDelay": 0})
	e.push("q", "p", 0, 3)
	res := e.pop(consume.PopRequest{Queue: "q", Batch: 3})
	if a := e.ack(sub(res, 1), "", consume.StatusFailed, true); !a[0].OK || !a[0].Released {
		t.Fatalf("failed p-1: %+v", a[0])
	}
	// p-0 was neither committed nor nacked: the released lease gives it back too.
	equal(t, "after the failed ack", txids(e.pop(consume.PopRequest{Queue: "q", Batch: 10})), []string{"p-0#2", "p-1#2", "p-2#2"})
	// The old lease settles nothing any more.
	if a := e.ack(sub(res, 2), "", consume.StatusCompleted, true); a[0].OK {
		t.Fatalf("an ack under the released lease: %+v", a[0])
	}
}

func TestAnAckOfAnUnknownTransactionIsUnresolvable(t *testing.T) {
	e := startWith(t, "q", "p", 1)
	res := e.pop(consume.PopRequest{Queue: "q"})
	res.Parts[0].Messages[0].TransactionID = "never-pushed"
	for _, st := range []byte{consume.StatusCompleted, consume.StatusFailed} {
		if a := e.ack(res, "", st, true); a[0].OK || !strings.Contains(a[0].Error, "unresolvable") || !strings.Contains(a[0].Error, "never-pushed") {
			t.Fatalf("ack (status %d) of an unknown transaction: %+v", st, a[0])
		}
	}
}

func TestAcksFindMessagesPushedWithoutDeduplication(t *testing.T) {
	e := start(t)
	op := queuelog.PushOp{Tenant: tenant}
	for i := range 3 {
		op.Items = append(op.Items, queuelog.PushItem{Queue: "q", Partition: "p", MessageID: [16]byte{byte(i + 1)},
			TransactionID: "nodedup-" + string(rune('0'+i)), Payload: []byte(`{}`)})
	}
	if _, _, err := queuelog.Push(e.ctx(), e.shard, op); err != nil {
		t.Fatal(err)
	}
	res := e.pop(consume.PopRequest{Queue: "q", Batch: 3})
	if a := e.ack(sub(res, 1), "", consume.StatusCompleted, true); !a[0].OK || a[0].Noop {
		t.Fatalf("ack of a message with no dedup entry: %+v", a[0])
	}
	if a := e.ack(sub(res, 2), "", consume.StatusCompleted, false); !a[0].OK || !a[0].Released {
		t.Fatalf("unfenced ack of the last: %+v", a[0])
	}
	if got := e.pop(consume.PopRequest{Queue: "q", Batch: 10}); len(got.Parts) != 0 {
		t.Fatalf("committed messages delivered again: %v", txids(got))
	}
}

func TestGroupsReadIndependentlyAndNewGroupsStartAtTheirSubscription(t *testing.T) {
	e := startWith(t, "q", "p", 2)
	all := e.pop(consume.PopRequest{Queue: "q", Group: "a", Mode: consume.ModeAll, Batch: 10})
	equal(t, "group a (all)", txids(all), seq("p", 0, 2, 1))
	none := e.pop(consume.PopRequest{Queue: "q", Group: "b", Mode: consume.ModeNew, Batch: 10})
	equal(t, "group b (new) before any push after it subscribed", txids(none), nil)
	e.push("q", "p", 2, 1)
	equal(t, "group b after a push", txids(e.pop(consume.PopRequest{Queue: "q", Group: "b", Batch: 10})), []string{"p-2#1"})
	equal(t, "queue mode", txids(e.pop(consume.PopRequest{Queue: "q", Batch: 10})), seq("p", 0, 3, 1))
}

func TestFailedAcksRetryUpToTheLimitThenTheDLQ(t *testing.T) {
	e := start(t)
	e.configure("q", map[string]any{"retryLimit": 2, "retryDelay": 0})
	e.push("q", "p", 0, 2)
	for attempt := 1; attempt <= 3; attempt++ {
		res := e.pop(consume.PopRequest{Queue: "q"})
		equal(t, "delivery", txids(res), []string{"p-0#" + string(rune('0'+attempt))})
		a := e.ack(res, "", consume.StatusFailed, true)
		if !a[0].OK || a[0].DLQ != (attempt == 3) {
			t.Fatalf("failed ack %d: %+v (the third is past retryLimit 2)", attempt, a[0])
		}
	}
	equal(t, "after the DLQ", txids(e.pop(consume.PopRequest{Queue: "q"})), []string{"p-1#1"})
	letters := e.letters("q", "__QUEUE_MODE__")
	if len(letters) != 1 || letters[0].TransactionID != "p-0" || letters[0].Attempts != 3 || string(letters[0].Payload) != `{"i":0}` {
		t.Fatalf("dead letters: %+v", letters)
	}
}

func TestAFailedMessageWaitsItsRetryDelayAndBlocksThePartition(t *testing.T) {
	e := start(t)
	e.configure("q", map[string]any{"retryLimit": 5, "retryDelay": 300})
	e.push("q", "p", 0, 2)
	res := e.pop(consume.PopRequest{Queue: "q"})
	e.ack(res, "", consume.StatusFailed, true)
	// Order per partition: p-1 is not delivered past p-0 while p-0 waits.
	if got := e.pop(consume.PopRequest{Queue: "q"}); len(got.Parts) != 0 {
		t.Fatalf("delivered %v during p-0's retry delay", txids(got))
	}
	// A long poll wakes when the delay ends.
	equal(t, "after the delay", txids(e.pop(consume.PopRequest{Queue: "q", Wait: 10 * time.Second})), []string{"p-0#2"})
}

func TestAnExpiredLeaseRedeliversAndFencesItsAcks(t *testing.T) {
	e := startWith(t, "q", "p", 2)
	first := e.pop(consume.PopRequest{Queue: "q", Batch: 2, Lease: 200 * time.Millisecond})
	// The long poll wakes at the lease's end and takes the partition.
	second := e.pop(consume.PopRequest{Queue: "q", Batch: 2, Wait: 10 * time.Second})
	equal(t, "redelivery", txids(second), seq("p", 0, 2, 2))
	if second.LeaseID == first.LeaseID {
		t.Fatal("the redelivery reused the expired lease's id")
	}
	for _, a := range e.ack(first, "", consume.StatusCompleted, true) {
		if a.OK {
			t.Fatalf("an ack under the expired lease was taken: %+v", a)
		}
	}
	for _, a := range e.ack(second, "", consume.StatusCompleted, true) {
		if !a.OK {
			t.Fatalf("an ack under the live lease was refused: %+v", a)
		}
	}
}

func TestTheSkewMarginHoldsThePartitionPastTheLeaseEnd(t *testing.T) {
	e := start(t)
	e.c.Skew = time.Hour
	e.push("q", "p", 0, 1)
	first := e.pop(consume.PopRequest{Queue: "q", Lease: time.Millisecond})
	if got := e.pop(consume.PopRequest{Queue: "q"}); len(got.Parts) != 0 {
		t.Fatalf("the partition was given again within the skew margin: %v", txids(got))
	}
	if a := e.ack(first, "", consume.StatusCompleted, true); !a[0].OK {
		t.Fatalf("an ack within the skew margin: %+v", a[0])
	}
}

func TestExtendRenewsOnlyALiveLease(t *testing.T) {
	e := startWith(t, "q", "p", 1)
	res := e.pop(consume.PopRequest{Queue: "q", Lease: time.Minute})
	got, err := e.c.Extend(e.ctx(), tenant, res.LeaseID, time.Hour)
	if err != nil || got.Renewed != 1 || got.End < res.End+int64(50*time.Minute/time.Microsecond) {
		t.Fatalf("extend: %+v %v (lease ended %d)", got, err, res.End)
	}
	e.ack(res, "", consume.StatusCompleted, true)
	for _, id := range []string{res.LeaseID, "unknown"} {
		if got, err := e.c.Extend(e.ctx(), tenant, id, time.Hour); err != nil || got.Renewed != 0 {
			t.Fatalf("extend of %s after release: %+v %v", id, got, err)
		}
	}
}

// TestExtendByOwnLength: an extension without a length moves the lease's
// end by the length its pop gave it (7 minutes from the extension), not
// by the queue's leaseTime (60 s for a queue a push created).
func TestExtendByOwnLength(t *testing.T) {
	e := startWith(t, "q", "p", 1)
	res := e.pop(consume.PopRequest{Queue: "q", Lease: 7 * time.Minute})
	got, err := e.c.Extend(e.ctx(), tenant, res.LeaseID, 0)
	if err != nil || got.Renewed != 1 || got.End < res.End || got.End-res.End > int64(time.Minute/time.Microsecond) {
		t.Fatalf("extend by its own length: %+v %v (the pop's lease ended %d)", got, err, res.End)
	}
}

func TestOnePopLeasesSeveralPartitionsWithinItsBatch(t *testing.T) {
	e := start(t)
	for _, p := range []string{"a", "b", "c", "d"} {
		e.push("q", p, 0, 2)
	}
	res := e.pop(consume.PopRequest{Queue: "q", Batch: 5, MaxPartitions: 3})
	if n := len(txids(res)); n != 5 || len(res.Parts) != 3 {
		t.Fatalf("pop of batch 5 over 3 partitions: %v", txids(res))
	}
	for _, p := range res.Parts {
		if strings.Join(txids(consume.PopResult{Parts: []consume.Popped{p}}), ",") == "" {
			t.Fatalf("partition %s claimed empty", p.Partition)
		}
	}
	// The fourth partition is the only one left.
	rest := e.pop(consume.PopRequest{Queue: "q", Batch: 10, MaxPartitions: 4})
	if len(rest.Parts) != 1 {
		t.Fatalf("second pop: %+v", txids(rest))
	}
}

func TestALongPollIsWokenByAPush(t *testing.T) {
	e := start(t)
	got := make(chan consume.PopResult, 1)
	go func() { got <- e.pop(consume.PopRequest{Queue: "q", Wait: 20 * time.Second}) }()
	// The pop parks on the queue's watch; a push wakes it whenever it lands.
	e.push("q", "p", 0, 1)
	equal(t, "long poll", txids(<-got), []string{"p-0#1"})
}

func TestAutoAckLeavesNoLease(t *testing.T) {
	e := startWith(t, "q", "p", 3)
	res := e.pop(consume.PopRequest{Queue: "q", Batch: 2, AutoAck: true})
	if res.LeaseID != "" {
		t.Fatalf("autoAck pop has lease %q", res.LeaseID)
	}
	equal(t, "after autoAck", txids(e.pop(consume.PopRequest{Queue: "q", Batch: 5})), []string{"p-2#1"})
}

func TestAQueueWidePopWalksFromItsStartAndWraps(t *testing.T) {
	e := start(t)
	for _, p := range []string{"a", "b", "c"} {
		e.push("q", p, 0, 1)
	}
	op := consume.PopOp{Tenant: tenant, Queue: "q", Group: "__QUEUE_MODE__", Mode: consume.ModeAll, Start: 2,
		Batch: 2, MaxPartitions: 3, LeaseMicros: int64(time.Minute / time.Microsecond), LeaseID: "l1"}
	r, err := e.shard.Propose(e.ctx(), raftlog.Command{Ops: []raftlog.Op{op.Op()}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := consume.DecodePopResult(r.Ops[0])
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "walk from partition 2", txids(res), []string{"b-0#1", "c-0#1"})
	op.Start, op.LeaseID = 3, "l2"
	r, _ = e.shard.Propose(e.ctx(), raftlog.Command{Ops: []raftlog.Op{op.Op()}})
	res, _ = consume.DecodePopResult(r.Ops[0])
	equal(t, "walk from partition 3, wrapping past the held ones", txids(res), []string{"a-0#1"})
}

// TestConflationDeliversTheNewestAndRetiresTheRest: a conflating group
// gets, per partition, the newest message alone; the ones behind it are
// retired for it (never delivered), other groups read them all; the
// group's first pop fixes its policy, and a later pop that asks otherwise
// is told of the conflict and served by the stored one.
func TestConflationDeliversTheNewestAndRetiresTheRest(t *testing.T) {
	e := startWith(t, "q", "a", 3)
	e.push("q", "b", 0, 1)
	req := consume.PopRequest{Queue: "q", Group: "latest", Mode: consume.ModeAll, Batch: 10, MaxPartitions: 2, Conflate: true}
	res := e.pop(req)
	if !res.Conflation || res.Conflict {
		t.Fatalf("flags of a conflating pop: %+v", res)
	}
	got := txids(res)
	slices.Sort(got)
	equal(t, "conflated", got, []string{"a-2#1", "b-0#1"})
	e.ack(res, "latest", consume.StatusCompleted, true)
	if again := e.pop(req); len(again.Parts) != 0 || !again.Conflation {
		t.Fatalf("after the ack: %v %+v", txids(again), again)
	}
	// A newer message comes: it alone, what was retired stays retired.
	e.push("q", "a", 3, 2)
	req.Conflate = false
	next := e.pop(req)
	if !next.Conflation || !next.Conflict {
		t.Fatalf("a pop asking no conflation of a conflating group: %+v", next)
	}
	equal(t, "the newest again", txids(next), []string{"a-4#1"})
	// Another group, without conflation, reads everything.
	all := e.pop(consume.PopRequest{Queue: "q", Group: "all", Mode: consume.ModeAll, Batch: 10, MaxPartitions: 2})
	if all.Conflation || len(txids(all)) != 6 {
		t.Fatalf("a plain group: %v %+v", txids(all), all)
	}
}

// TestAConflatingGroupPoppedWithAutoAckSettlesWhatItDelivers: a pop with
// autoAck of a group that conflates (its stored policy, whatever the pop
// asks) settles the newest message it delivers: it never comes back.
func TestAConflatingGroupPoppedWithAutoAckSettlesWhatItDelivers(t *testing.T) {
	e := startWith(t, "q", "a", 3)
	first := e.pop(consume.PopRequest{Queue: "q", Group: "latest", Mode: consume.ModeAll, Conflate: true})
	e.ack(first, "latest", consume.StatusCompleted, true)
	e.push("q", "a", 3, 2)
	got := e.pop(consume.PopRequest{Queue: "q", Group: "latest", Batch: 10, AutoAck: true})
	equal(t, "autoAck on a conflating group", txids(got), []string{"a-4#1"})
	if again := e.pop(consume.PopRequest{Queue: "q", Group: "latest", Batch: 10}); len(again.Parts) != 0 {
		t.Fatalf("a message delivered with autoAck came back: %v", txids(again))
	}
}

// TestANackCountsOncePerDelivery: a nack names a message a lease holds;
// repeated (an HTTP retry, unfenced) it is refused, so one delivery spends
// one retry.
func TestANackCountsOncePerDelivery(t *testing.T) {
	e := start(t)
	e.configure("q", map[string]any{"retryLimit": 2, "retryDelay": 0})
	e.push("q", "p", 0, 1)
	res := e.pop(consume.PopRequest{Queue: "q"})
	for i := range 3 {
		a := e.ack(res, "", consume.StatusFailed, false)
		if ok := i == 0; a[0].OK != ok || a[0].DLQ || !ok && !strings.Contains(a[0].Error, "held by no lease") {
			t.Fatalf("unfenced failed ack %d: %+v", i, a[0])
		}
	}
	equal(t, "after one charged nack", txids(e.pop(consume.PopRequest{Queue: "q"})), []string{"p-0#2"})
	if n := len(e.letters("q", "__QUEUE_MODE__")); n != 0 {
		t.Fatalf("%d dead letters after one failure of retryLimit 2", n)
	}
}

// TestAnAckOfASharedTransactionIDSettlesTheLiveMessage: with
// deduplication off two messages may share a transaction id; an ack names
// the one still to settle, not the one settled.
func TestAnAckOfASharedTransactionIDSettlesTheLiveMessage(t *testing.T) {
	e := start(t)
	op := queuelog.PushOp{Tenant: tenant}
	for i, id := range []string{"A", "X", "X"} {
		op.Items = append(op.Items, queuelog.PushItem{Queue: "q", Partition: "p", MessageID: [16]byte{byte(i + 1)}, TransactionID: id, Payload: []byte(`{}`)})
	}
	if _, _, err := queuelog.Push(e.ctx(), e.shard, op); err != nil {
		t.Fatal(err)
	}
	res := e.pop(consume.PopRequest{Queue: "q", Batch: 3})
	if a := e.ack(sub(res, 1), "", consume.StatusDLQ, true); !a[0].DLQ {
		t.Fatalf("dlq of the first X: %+v", a[0])
	}
	// The second X settles, and with it A, the lease's earlier message.
	if a := e.ack(sub(res, 2), "", consume.StatusCompleted, true); !a[0].OK || a[0].Noop || !a[0].Released {
		t.Fatalf("completed X after the first was filed: %+v, want the second X settled", a[0])
	}
	if got := e.pop(consume.PopRequest{Queue: "q", Batch: 10}); len(got.Parts) != 0 {
		t.Fatalf("settled messages came back: %v", txids(got))
	}
}

// TestACompletedAckOfTheNackedMessageIsRefusedInAnyOrder: in one call, a
// completed ack of the message a failed ack of the same call names is
// refused, before or after it, even when the failure files it in the DLQ.
func TestACompletedAckOfTheNackedMessageIsRefusedInAnyOrder(t *testing.T) {
	for _, failedFirst := range []bool{true, false} {
		e := start(t)
		e.configure("q", map[string]any{"retryLimit": 0, "retryDelay": 0})
		e.push("q", "p", 0, 1)
		res := e.pop(consume.PopRequest{Queue: "q"})
		m := res.Parts[0].Messages[0]
		failed := consume.AckItem{TransactionID: m.TransactionID, PartitionUID: res.Parts[0].UID, Group: "__QUEUE_MODE__", LeaseID: res.LeaseID, Status: consume.StatusFailed}
		done := failed
		done.Status = consume.StatusCompleted
		items, at := []consume.AckItem{failed, done}, 1
		if !failedFirst {
			items, at = []consume.AckItem{done, failed}, 0
		}
		got, err := e.c.Ack(e.ctx(), tenant, items)
		if err != nil {
			t.Fatal(err)
		}
		if a := got[at]; a.OK || !strings.Contains(a.Error, "not committed") {
			t.Fatalf("failed first %v: the completed ack answered %+v", failedFirst, a)
		}
		if a := got[1-at]; !a.OK || !a.DLQ {
			t.Fatalf("failed first %v: the failed ack answered %+v", failedFirst, a)
		}
	}
}

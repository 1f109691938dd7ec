package consume_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

func TestSeekMovesTheCursorAndReleasesLeases(t *testing.T) {
	e := startWith(t, "q", "p", 3)
	_, stamp, err := queuelog.Push(e.ctx(), e.shard, queuelog.PushOp{Tenant: tenant, Items: []queuelog.PushItem{{Queue: "q", Partition: "p",
		TransactionID: "p-3", MessageID: [16]byte{3}, Payload: []byte(`{"i":3}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	e.push("q", "p", 4, 1)
	held := e.pop(consume.PopRequest{Queue: "q", Group: "g", Mode: consume.ModeAll})
	if n, err := e.c.Seek(e.ctx(), consume.SeekOp{Tenant: tenant, Queue: "q", Group: "g", To: stamp}); err != nil || n != 1 {
		t.Fatalf("seek to a time: %d %v", n, err)
	}
	// The lease is gone with the seek: the partition is free at offset 3.
	equal(t, "after the seek", txids(e.pop(consume.PopRequest{Queue: "q", Group: "g", Batch: 10})), []string{"p-3#1", "p-4#1"})
	// The seek committed p-0: an ack of it under the lease the seek
	// released changes nothing.
	if a := e.ack(held, "g", consume.StatusCompleted, true); !a[0].OK || !a[0].Noop || a[0].Released {
		t.Fatalf("an ack under a lease the seek released: %+v, want a noop", a[0])
	}
	if a := e.ack(held, "g", consume.StatusFailed, true); a[0].OK || !strings.Contains(a[0].Error, "already committed") {
		t.Fatalf("a nack of a message the seek passed: %+v, want a refusal", a[0])
	}
	if _, err := e.c.Seek(e.ctx(), consume.SeekOp{Tenant: tenant, Queue: "q", Group: "g", ToEnd: true}); err != nil {
		t.Fatal(err)
	}
	if got := e.pop(consume.PopRequest{Queue: "q", Group: "g", Batch: 10}); len(got.Parts) != 0 {
		t.Fatalf("after a seek to the end: %v", txids(got))
	}
}

func TestGroupsReportCursorsLagAndLeases(t *testing.T) {
	e := startWith(t, "q", "a", 4)
	e.push("q", "b", 0, 2)
	res := e.pop(consume.PopRequest{Queue: "q", Group: "g", Mode: consume.ModeAll, Partition: "a", Batch: 3})
	e.ack(res, "g", consume.StatusCompleted, true)
	e.pop(consume.PopRequest{Queue: "q", Group: "g", Partition: "a"})
	groups, err := e.c.Groups(e.ctx(), tenant, "")
	if err != nil || len(groups) != 1 {
		t.Fatalf("groups: %+v %v", groups, err)
	}
	g := groups[0]
	// a: cursor 3 of 4, leased; b: never read, mode all, cursor 0 of 2.
	if g.Queue != "q" || g.Group != "g" || g.Lag != 3 || len(g.Partitions) != 2 ||
		g.Partitions[0].Cursor != 3 || g.Partitions[0].LeaseID == "" || g.Partitions[1].Cursor != 0 || g.Partitions[1].HighWatermark != 2 {
		t.Fatalf("group: %+v", g)
	}
	if n, err := e.c.DeleteGroup(e.ctx(), consume.DeleteOp{Tenant: tenant, Group: "g"}); err != nil || n != 1 {
		t.Fatalf("delete: %d %v", n, err)
	}
	if groups, _ := e.c.Groups(e.ctx(), tenant, ""); len(groups) != 0 {
		t.Fatalf("after delete: %+v", groups)
	}
}

// TestGroupsCountLeasedAndSettled: a partition's counts come from the
// group's state: what the live lease holds, what was acked out of order,
// and what is left to settle; an expired lease holds nothing.
func TestGroupsCountLeasedAndSettled(t *testing.T) {
	e := startWith(t, "q", "a", 5)
	res := e.pop(consume.PopRequest{Queue: "q", Group: "g", Mode: consume.ModeAll, Batch: 3, Lease: time.Hour})
	second := res
	second.Parts = []consume.Popped{res.Parts[0]}
	second.Parts[0].Messages = res.Parts[0].Messages[1:2]
	// A completed ack of a-1 would commit a-0 with it; filing a-1 in the
	// DLQ settles it alone.
	if a := e.ack(second, "g", consume.StatusDLQ, true); !a[0].OK || !a[0].DLQ {
		t.Fatalf("ack a-1: %+v", a)
	}
	part := func() consume.GroupPartition {
		t.Helper()
		groups, err := e.c.Groups(e.ctx(), tenant, "g")
		if err != nil || len(groups) != 1 || len(groups[0].Partitions) != 1 {
			t.Fatalf("groups: %+v %v", groups, err)
		}
		return groups[0].Partitions[0]
	}
	// a-0 and a-2 leased, a-1 settled out of order, a-3 and a-4 never delivered.
	if p := part(); p.Cursor != 0 || p.LogStart != 0 || p.HighWatermark != 5 || p.Leased != 2 || p.Settled != 1 || p.Unsettled() != 4 {
		t.Fatalf("partition: %+v unsettled %d", p, p.Unsettled())
	}
	first := res
	first.Parts = []consume.Popped{res.Parts[0]}
	first.Parts[0].Messages = res.Parts[0].Messages[:1]
	e.ack(first, "g", consume.StatusCompleted, true)
	// The cursor passes a-0 and a-1: a-2 is left leased.
	if p := part(); p.Cursor != 2 || p.Leased != 1 || p.Settled != 0 || p.Unsettled() != 3 {
		t.Fatalf("partition: %+v unsettled %d", p, p.Unsettled())
	}
}

func TestReplayMovesADeadLetterBackOnce(t *testing.T) {
	e := startWith(t, "q", "p", 1)
	res := e.pop(consume.PopRequest{Queue: "q"})
	e.ack(res, "", consume.StatusDLQ, true)
	letters := e.letters("q", "")
	if len(letters) != 1 || letters[0].ID == "" || letters[0].Queue != "q" {
		t.Fatalf("letters: %+v", letters)
	}
	id := letters[0].ID
	l, dup, err := e.c.Replay(e.ctx(), tenant, id, "", "", [16]byte{9}, nil)
	if err != nil || dup || l.TransactionID != "p-0" {
		t.Fatalf("replay: %+v %v %v", l, dup, err)
	}
	equal(t, "the replayed copy", txids(e.pop(consume.PopRequest{Queue: "q"})), []string{"dlq:" + id + "#1"})
	if _, _, err := e.c.Replay(e.ctx(), tenant, id, "", "", [16]byte{10}, nil); !errors.Is(err, consume.ErrGone) {
		t.Fatalf("a second replay: %v", err)
	}
	if len(e.letters("q", "")) != 0 {
		t.Fatal("the replayed letter is still in the DLQ")
	}
}

func TestPurgeDeletesOneGroupsLettersOrAll(t *testing.T) {
	e := startWith(t, "q", "p", 2)
	for _, g := range []string{"a", "b"} {
		res := e.pop(consume.PopRequest{Queue: "q", Group: g, Mode: consume.ModeAll, Batch: 2})
		e.ack(res, g, consume.StatusDLQ, true)
	}
	if n, err := e.c.Purge(e.ctx(), consume.PurgeOp{Tenant: tenant, Queue: "q", Group: "a"}); err != nil || n != 2 {
		t.Fatalf("purge a: %d %v", n, err)
	}
	if got := e.letters("q", ""); len(got) != 2 || got[0].Group != "b" {
		t.Fatalf("after purging a: %+v", got)
	}
	if n, _ := e.c.Purge(e.ctx(), consume.PurgeOp{Tenant: tenant, Queue: "q"}); n != 2 || len(e.letters("q", "")) != 0 {
		t.Fatalf("purge all: %d", n)
	}
}

func TestDeletingAGroupButNotItsSubscriptionStartsItAgainWhereItSubscribed(t *testing.T) {
	e := startWith(t, "q", "p", 2)
	if got := e.pop(consume.PopRequest{Queue: "q", Group: "g", Mode: consume.ModeNew}); len(got.Parts) != 0 {
		t.Fatalf("a new group read what came before it: %v", txids(got))
	}
	e.push("q", "p", 2, 2)
	read := e.pop(consume.PopRequest{Queue: "q", Group: "g", Batch: 10})
	equal(t, "after its subscription", txids(read), seq("p", 2, 4, 1))
	e.ack(read, "g", consume.StatusCompleted, true)
	if n, err := e.c.DeleteGroup(e.ctx(), consume.DeleteOp{Tenant: tenant, Group: "g", KeepSubscription: true}); err != nil || n != 1 {
		t.Fatalf("delete keeping the subscription: %d %v", n, err)
	}
	equal(t, "again from its subscription", txids(e.pop(consume.PopRequest{Queue: "q", Group: "g", Batch: 10})), seq("p", 2, 4, 1))
	if n, err := e.c.DeleteGroup(e.ctx(), consume.DeleteOp{Tenant: tenant, Group: "g"}); err != nil || n != 1 {
		t.Fatalf("delete: %d %v", n, err)
	}
	// Without its subscription the group is new again: mode new reads
	// only what comes after this pop.
	if got := e.pop(consume.PopRequest{Queue: "q", Group: "g", Mode: consume.ModeNew, Batch: 10}); len(got.Parts) != 0 {
		t.Fatalf("a group deleted with its subscription read %v", txids(got))
	}
}

func TestASubscriptionTimeMovesWhereAGroupStartsOnPartitionsItHasNotRead(t *testing.T) {
	e := startWith(t, "q", "a", 1)
	if got := e.pop(consume.PopRequest{Queue: "q", Group: "g", Mode: consume.ModeNew}); len(got.Parts) != 0 {
		t.Fatalf("a new group read %v", txids(got))
	}
	e.push("q", "b", 0, 1)
	_, stamp, err := queuelog.Push(e.ctx(), e.shard, queuelog.PushOp{Tenant: tenant, Items: []queuelog.PushItem{{Queue: "q", Partition: "b",
		TransactionID: "b-1", MessageID: [16]byte{'b', 1}, Payload: []byte(`{}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := e.c.SetSubscription(e.ctx(), consume.SubscriptionOp{Tenant: tenant, Group: "g", From: stamp}); err != nil || n != 1 {
		t.Fatalf("subscription: %d %v", n, err)
	}
	if n, err := e.c.SetSubscription(e.ctx(), consume.SubscriptionOp{Tenant: tenant, Group: "nobody", From: stamp}); err != nil || n != 0 {
		t.Fatalf("subscription of a group that reads nothing: %d %v", n, err)
	}
	// Neither partition has delivered anything to g: both start at the
	// subscription time, b-1 and not b-0 (a-0 is older still).
	equal(t, "after the new subscription time", txids(e.pop(consume.PopRequest{Queue: "q", Group: "g", Batch: 10, MaxPartitions: 2})), []string{"b-1#1"})
}

// TestASubscriptionTimeRewindsAGroupThatReadNothing: a group in mode new
// that popped nothing yet starts, after its subscription time is moved
// back, at the first record at or after it (the 2.x client's
// update_consumer_group_timestamp); one that has read a partition keeps
// its cursor there.
func TestASubscriptionTimeRewindsAGroupThatReadNothing(t *testing.T) {
	e := start(t)
	_, t1, err := queuelog.Push(e.ctx(), e.shard, queuelog.PushOp{Tenant: tenant, Items: []queuelog.PushItem{{Queue: "q", Partition: "p",
		TransactionID: "m1", MessageID: [16]byte{1}, Payload: []byte(`1`)}}})
	if err != nil {
		t.Fatal(err)
	}
	_, t2, err := queuelog.Push(e.ctx(), e.shard, queuelog.PushOp{Tenant: tenant, Items: []queuelog.PushItem{{Queue: "q", Partition: "p",
		TransactionID: "m2", MessageID: [16]byte{2}, Payload: []byte(`2`)}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"g", "h"} {
		if got := e.pop(consume.PopRequest{Queue: "q", Group: g, Mode: consume.ModeNew, Batch: 10}); len(got.Parts) != 0 {
			t.Fatalf("group %s in mode new read %v", g, txids(got))
		}
	}
	e.push("q", "p", 3, 1)
	read := e.pop(consume.PopRequest{Queue: "q", Group: "h", Batch: 10})
	equal(t, "h reads what came after it", txids(read), []string{"p-3#1"})
	e.ack(read, "h", consume.StatusCompleted, true)
	for _, g := range []string{"g", "h"} {
		if n, err := e.c.SetSubscription(e.ctx(), consume.SubscriptionOp{Tenant: tenant, Group: g, From: t1 + (t2-t1)/2}); err != nil || n != 1 {
			t.Fatalf("subscription of %s: %d %v", g, n, err)
		}
	}
	equal(t, "g, rewound", txids(e.pop(consume.PopRequest{Queue: "q", Group: "g", Batch: 10})), []string{"m2#1", "p-3#1"})
	if got := e.pop(consume.PopRequest{Queue: "q", Group: "h", Batch: 10}); len(got.Parts) != 0 {
		t.Fatalf("h, which had read the partition, read again: %v", txids(got))
	}
}

func TestDeletingAQueueForgetsItsGroupsLettersLeasesAndPartitionIDs(t *testing.T) {
	e := startWith(t, "q", "p", 3)
	e.push("kept", "p", 0, 1)
	res := e.pop(consume.PopRequest{Queue: "q", Group: "g", Mode: consume.ModeAll, Batch: 3})
	kept := e.pop(consume.PopRequest{Queue: "kept", Group: "g", Mode: consume.ModeAll})
	if a := e.ack(sub(res, 0), "g", consume.StatusDLQ, true); !a[0].DLQ {
		t.Fatalf("dlq: %+v", a[0])
	}
	id := e.letters("q", "g")[0].ID
	q, d, err := e.c.DeleteQueue(e.ctx(), tenant, "q")
	if err != nil || q != (queuelog.DeleteQueueAnswer{Found: true, Partitions: 1, Records: 3}) || d != (consume.DropQueueAnswer{Groups: 1, DeadLetters: 1}) {
		t.Fatalf("delete: %+v %+v %v", q, d, err)
	}
	if n := len(e.letters("q", "")); n != 0 {
		t.Fatalf("%d dead letters left", n)
	}
	if _, _, err := e.c.Replay(e.ctx(), tenant, id, "", "", [16]byte{1}, nil); !errors.Is(err, consume.ErrGone) {
		t.Fatalf("replay of a letter of the deleted queue: %v", err)
	}
	groups, err := e.c.Groups(e.ctx(), tenant, "g")
	if err != nil || len(groups) != 1 || groups[0].Queue != "kept" {
		t.Fatalf("groups after the delete: %+v %v", groups, err)
	}
	if a := e.ack(sub(res, 1), "g", consume.StatusCompleted, true); a[0].OK || !strings.Contains(a[0].Error, "names no partition") {
		t.Fatalf("an ack of the deleted queue: %+v", a[0])
	}
	if x, err := e.c.Extend(e.ctx(), tenant, res.LeaseID, time.Minute); err != nil || x.Renewed != 0 {
		t.Fatalf("extend of a lease on the deleted queue: %+v %v", x, err)
	}
	if a := e.ack(kept, "g", consume.StatusCompleted, true); !a[0].OK {
		t.Fatalf("an ack of the other queue: %+v", a[0])
	}
	// Pushed again, the queue is new: the group has not read it.
	e.push("q", "p", 0, 1)
	equal(t, "the queue anew", txids(e.pop(consume.PopRequest{Queue: "q", Group: "g", Mode: consume.ModeAll, Batch: 10})), []string{"p-0#1"})
	if q, d, err := e.c.DeleteQueue(e.ctx(), tenant, "never"); err != nil || q.Found || d != (consume.DropQueueAnswer{}) {
		t.Fatalf("delete of an unknown queue: %+v %+v %v", q, d, err)
	}
}

func TestADeletedMessageIsDeliveredToNoGroup(t *testing.T) {
	e := startWith(t, "q", "p", 3)
	held := e.pop(consume.PopRequest{Queue: "q", Group: "a", Mode: consume.ModeAll, Batch: 3})
	only := e.pop(consume.PopRequest{Queue: "q", Group: "c", Mode: consume.ModeAll, Batch: 2})
	e.ack(sub(only, 0), "c", consume.StatusCompleted, true) // c holds p-1 alone now
	uid := held.Parts[0].UID
	// An op that names another record, or an offset not pushed yet, or
	// another life of the partition, deletes nothing.
	for _, bad := range []consume.DeleteMessageOp{
		{Tenant: tenant, Queue: "q", Partition: "p", UID: uid, Offset: 1, TransactionID: "p-2"},
		{Tenant: tenant, Queue: "q", Partition: "p", UID: uid, Offset: 3, TransactionID: "p-3"},
		{Tenant: tenant, Queue: "q", Partition: "p", UID: uid + 100, Offset: 1, TransactionID: "p-1"},
	} {
		if ok, err := e.c.DeleteMessage(e.ctx(), bad); err != nil || ok {
			t.Fatalf("delete %+v: %v %v, want nothing deleted", bad, ok, err)
		}
	}
	op := consume.DeleteMessageOp{Tenant: tenant, Queue: "q", Partition: "p", UID: uid, Offset: 1, TransactionID: "p-1"}
	if ok, err := e.c.DeleteMessage(e.ctx(), op); err != nil || !ok {
		t.Fatalf("delete: %v %v", ok, err)
	}
	if ok, err := e.c.DeleteMessage(e.ctx(), op); err != nil || ok {
		t.Fatalf("a second delete: %v %v, want false", ok, err)
	}
	// a held p-1 under its lease: settled now, the lease holds p-2 still.
	if a := e.ack(sub(held, 2), "a", consume.StatusCompleted, true); !a[0].OK || !a[0].Released {
		t.Fatalf("a's ack of p-2: %+v", a[0])
	}
	if got := e.pop(consume.PopRequest{Queue: "q", Group: "a", Batch: 10}); len(got.Parts) != 0 {
		t.Fatalf("a got %v", txids(got))
	}
	// c's lease held nothing but p-1: released, c reads on from p-2.
	equal(t, "c after the delete", txids(e.pop(consume.PopRequest{Queue: "q", Group: "c", Batch: 10})), []string{"p-2#1"})
	// A group that comes later passes it.
	equal(t, "a new group", txids(e.pop(consume.PopRequest{Queue: "q", Group: "b", Mode: consume.ModeAll, Batch: 10})), []string{"p-0#1", "p-2#1"})
	// A conflating group whose newest message is deleted gets nothing.
	e.push("q", "p", 3, 1)
	if ok, err := e.c.DeleteMessage(e.ctx(), consume.DeleteMessageOp{Tenant: tenant, Queue: "q", Partition: "p", UID: uid, Offset: 3, TransactionID: "p-3"}); err != nil || !ok {
		t.Fatalf("delete p-3: %v %v", ok, err)
	}
	if got := e.pop(consume.PopRequest{Queue: "q", Group: "l", Mode: consume.ModeAll, Batch: 10, Conflate: true}); len(got.Parts) != 0 {
		t.Fatalf("a conflating group got the deleted newest: %v", txids(got))
	}
}

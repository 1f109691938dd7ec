package consume_test

import (
	"testing"
	"time"

	"github.com/queen-mq/queen-go/queen/internal/consume"
)

// TestAnEmptyPopProposesNoEntry: a pop that finds nothing to lease and
// nothing to change is answered from a read index: no raft entry. The
// first pop of a new group does propose, since it fixes the group's start.
func TestAnEmptyPopProposesNoEntry(t *testing.T) {
	e := startWith(t, "q", "p", 1)
	first := consume.PopRequest{Queue: "q", Group: "g", Mode: consume.ModeAll}
	if got := txids(e.pop(first)); len(got) != 1 {
		t.Fatalf("first pop: %v", got)
	}
	applied, stats := e.shard.Applied(), e.c.Stats()
	for range 5 {
		if got := txids(e.pop(first)); len(got) != 0 {
			t.Fatalf("an empty pop leased %v", got)
		}
	}
	if a, s := e.shard.Applied(), e.c.Stats(); a != applied || s.Proposed != stats.Proposed || s.Tries != stats.Tries+5 {
		t.Fatalf("5 empty pops: applied %d → %d, stats %+v → %+v; want no entry", applied, a, stats, s)
	}
	// A new group's first pop, empty or not, proposes: it fixes the start.
	if got := txids(e.pop(consume.PopRequest{Queue: "q", Group: "other"})); len(got) != 0 {
		t.Fatalf("a new group with mode new leased %v", got)
	}
	if s := e.c.Stats(); s.Proposed != stats.Proposed+1 {
		t.Fatalf("a new group's first pop proposed %d entries", s.Proposed-stats.Proposed)
	}
	e.push("q", "p", 1, 1)
	if got := txids(e.pop(consume.PopRequest{Queue: "q", Group: "other"})); len(got) != 1 {
		t.Fatalf("the new group after a push: %v", got)
	}
}

// TestAPushWakesOnlyThePopsOfItsPartition: a pop waiting on one partition
// is not woken by pushes to other partitions of the queue (each wake was a
// try, and was an entry), and is woken by a push to its own.
func TestAPushWakesOnlyThePopsOfItsPartition(t *testing.T) {
	e := startWith(t, "q", "a", 1)
	e.push("q", "b", 0, 1)
	first := e.pop(consume.PopRequest{Queue: "q", Partition: "a", Group: "g", Mode: consume.ModeAll})
	if got := txids(first); len(got) != 1 {
		t.Fatalf("first pop: %v", got)
	}
	e.ack(first, "g", consume.StatusCompleted, true)
	before := e.c.Stats()
	done := make(chan consume.PopResult)
	go func() {
		res, err := e.c.Pop(e.ctx(), consume.PopRequest{Tenant: tenant, Queue: "q", Partition: "a", Group: "g", Batch: 1,
			MaxPartitions: 1, Mode: consume.ModeAll, Wait: 20 * time.Second})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	// The pop parks: its first try counts once its watches are taken, so
	// the pushes below come after them.
	for e.c.Stats().Tries == before.Tries {
		time.Sleep(time.Millisecond)
	}
	for i := range 20 {
		e.push("q", "b", 1+i, 1)
	}
	e.push("q", "a", 1, 1)
	res := <-done
	if got := txids(res); len(got) != 1 || got[0] != "a-1#1" {
		t.Fatalf("the parked pop got %v", got)
	}
	if tries := e.c.Stats().Tries - before.Tries; tries > 3 {
		t.Fatalf("the parked pop tried %d times for 20 pushes to another partition and 1 to its own", tries)
	}
}

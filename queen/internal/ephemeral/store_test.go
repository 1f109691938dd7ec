package ephemeral

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

const tenant = "00000000-0000-0000-0000-000000000001"

// clock is a manual clock for Options.Now.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// newStore is a store on a manual clock, with metrics on its own registry.
func newStore(t *testing.T, o Options) (*Store, *clock, *prometheus.Registry) {
	t.Helper()
	c := &clock{t: time.Date(2026, 9, 22, 10, 0, 0, 0, time.UTC)}
	reg := prometheus.NewRegistry()
	if o.Now == nil {
		o.Now = c.now
	}
	if o.Incarnation == 0 {
		o.Incarnation = 0xe1
	}
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	o.Registerer = reg
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s, c, reg
}

func push(t *testing.T, s *Store, queue, partition string, payloads ...string) {
	t.Helper()
	req := PushRequest{Tenant: tenant, Queue: queue, Partition: partition}
	for _, p := range payloads {
		req.Payloads = append(req.Payloads, []byte(p))
	}
	a, err := s.Push(req)
	if err != nil || a.Pushed != len(payloads) {
		t.Fatalf("push %v to %s/%s: %+v %v", payloads, queue, partition, a, err)
	}
}

// pop pops without waiting.
func pop(s *Store, queue, group string, batch int) []Message {
	return s.Pop(context.Background(), PopRequest{Tenant: tenant, Queue: queue, Group: group, Batch: batch})
}

// payloads renders what a pop got as "payload@attempts" in order.
func payloads(ms []Message) string {
	var b []string
	for _, m := range ms {
		b = append(b, string(m.Payload)+"@"+string(rune('0'+m.Attempts)))
	}
	return strings.Join(b, " ")
}

func ack(s *Store, queue, group string, st Status, ms ...Message) []Outcome {
	req := AckRequest{Tenant: tenant, Queue: queue, Group: group}
	for _, m := range ms {
		req.Acks = append(req.Acks, Ack{ID: m.ID, Status: st})
	}
	return s.Ack(req)
}

func wantHeld(t *testing.T, s *Store, bytes, messages int64) {
	t.Helper()
	if b, n := s.Held(); b != bytes || n != messages {
		t.Fatalf("held %d bytes, %d messages; want %d, %d", b, n, bytes, messages)
	}
}

func wantOutcomes(t *testing.T, got []Outcome, want ...Outcome) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("outcomes %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("outcomes %v, want %v", got, want)
		}
	}
}

// TestPushPopAck: a push is popped oldest first, a completed ack settles
// and frees it, a retry gives it back to be delivered again with attempts
// 2, before newer messages.
func TestPushPopAck(t *testing.T) {
	s, _, _ := newStore(t, Options{})
	push(t, s, "q", "", `{"a":1.50}`, `2`, `"three"`)
	wantHeld(t, s, 10+1+7+3*MessageOverhead, 3)
	got := pop(s, "q", "", 2)
	if payloads(got) != `{"a":1.50}@1 2@1` || got[0].Partition != DefaultPartition {
		t.Fatalf("pop = %+v", got)
	}
	wantOutcomes(t, ack(s, "q", "", Completed, got[0]), Acked)
	wantOutcomes(t, ack(s, "q", "", Retry, got[1]), Redelivered)
	wantHeld(t, s, 1+7+2*MessageOverhead, 2)
	again := pop(s, "q", "", 5)
	if payloads(again) != `2@2 "three"@1` {
		t.Fatalf("second pop = %s", payloads(again))
	}
	// The first ack again, and the retried delivery's old id: neither is
	// a delivery the group holds.
	wantOutcomes(t, ack(s, "q", "", Completed, got[0], got[1]), Unknown, Unknown)
	wantOutcomes(t, ack(s, "q", "", Completed, again...), Acked, Acked)
	wantHeld(t, s, 0, 0)
	if rest := pop(s, "q", "", 5); len(rest) != 0 {
		t.Fatalf("an empty queue popped %s", payloads(rest))
	}
}

// TestLeaseExpiry: an unacked message comes back when its lease ends, not
// a moment before; the late ack of the first delivery is unknown once it
// was delivered again, and the ack of a delivery whose lease ended (not
// delivered again) still settles it.
func TestLeaseExpiry(t *testing.T) {
	s, c, _ := newStore(t, Options{})
	if _, err := s.Configure(tenant, "q", Patch{Lease: ptr(10 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	push(t, s, "q", "p", `1`, `2`)
	first := pop(s, "q", "", 2)
	c.advance(10*time.Second - time.Nanosecond)
	if got := pop(s, "q", "", 2); len(got) != 0 {
		t.Fatalf("popped %s before the lease ended", payloads(got))
	}
	c.advance(time.Nanosecond)
	second := pop(s, "q", "", 1)
	if payloads(second) != "1@2" {
		t.Fatalf("after the lease: %s", payloads(second))
	}
	wantOutcomes(t, ack(s, "q", "", Completed, first[0]), Unknown)
	// first[1]'s lease ended too, but nobody took it since: its ack counts.
	wantOutcomes(t, ack(s, "q", "", Completed, first[1], second[0]), Acked, Acked)
	wantHeld(t, s, 0, 0)
}

// TestRetryLimit: a group gets 1+retryLimit deliveries of a message, by
// nacks or by expired leases; then the message is dropped and counted.
func TestRetryLimit(t *testing.T) {
	s, c, reg := newStore(t, Options{})
	if _, err := s.Configure(tenant, "q", Patch{RetryLimit: ptr(1), Lease: ptr(time.Second)}); err != nil {
		t.Fatal(err)
	}
	push(t, s, "q", "", `"n"`, `"e"`)
	a := pop(s, "q", "", 1)
	wantOutcomes(t, ack(s, "q", "", Failed, a...), Redelivered)
	b := pop(s, "q", "", 1)
	if payloads(b) != `"n"@2` {
		t.Fatalf("redelivery %s", payloads(b))
	}
	wantOutcomes(t, ack(s, "q", "", Failed, b...), Redelivered)
	// The nacked message has spent its retry: the next pop drops it and
	// takes the next one.
	e := pop(s, "q", "", 1)
	if payloads(e) != `"e"@1` {
		t.Fatalf("after the retries: %s", payloads(e))
	}
	c.advance(time.Second)
	if got := pop(s, "q", "", 1); payloads(got) != `"e"@2` {
		t.Fatalf("after the lease: %s", payloads(got))
	}
	c.advance(time.Second)
	s.Sweep()
	wantHeld(t, s, 0, 0)
	if n := counter(t, reg, "queen_ephemeral_dropped_total", "retries"); n != 2 {
		t.Fatalf("dropped for retries = %v, want 2", n)
	}
}

// TestGroups: every group has its own cursor (fan-out), one group's pops
// share the messages (competing consumers), and a message stays until
// every group that read the partition has settled it.
func TestGroups(t *testing.T) {
	s, _, _ := newStore(t, Options{})
	pop(s, "q", "a", 1) // both groups read the partition before the push
	pop(s, "q", "b", 1)
	push(t, s, "q", "", `1`, `2`)
	a1, a2 := pop(s, "q", "a", 1), pop(s, "q", "a", 1)
	if payloads(a1) != "1@1" || payloads(a2) != "2@1" {
		t.Fatalf("group a: %s, %s", payloads(a1), payloads(a2))
	}
	b := pop(s, "q", "b", 5)
	if payloads(b) != "1@1 2@1" {
		t.Fatalf("group b: %s", payloads(b))
	}
	// An ack names its group: a's ids mean nothing to b.
	wantOutcomes(t, ack(s, "q", "b", Completed, a1...), Unknown)
	wantOutcomes(t, ack(s, "q", "a", Completed, a1[0], a2[0]), Acked, Acked)
	wantHeld(t, s, 2+2*MessageOverhead, 2)
	wantOutcomes(t, ack(s, "q", "b", Completed, b...), Acked, Acked)
	wantHeld(t, s, 0, 0)
}

// TestLateGroup: a group reads a partition from the oldest message it
// holds: what every earlier group settled is gone; a message pushed
// before any group came waits for the first.
func TestLateGroup(t *testing.T) {
	s, _, _ := newStore(t, Options{})
	push(t, s, "q", "", `1`)
	a := pop(s, "q", "a", 1)
	push(t, s, "q", "", `2`)
	wantOutcomes(t, ack(s, "q", "a", Completed, a...), Acked)
	if got := pop(s, "q", "late", 5); payloads(got) != "2@1" {
		t.Fatalf("late group: %s", payloads(got))
	}
}

// TestAutoAck: a pop that commits at delivery leaves nothing to ack.
func TestAutoAck(t *testing.T) {
	s, _, _ := newStore(t, Options{})
	push(t, s, "q", "", `1`, `2`)
	got := s.Pop(context.Background(), PopRequest{Tenant: tenant, Queue: "q", Batch: 1, AutoAck: true})
	if payloads(got) != "1@1" {
		t.Fatalf("pop %s", payloads(got))
	}
	wantHeld(t, s, 1+MessageOverhead, 1)
	wantOutcomes(t, ack(s, "q", "", Completed, got...), Unknown)
}

// TestPartitions: a pop without a partition takes from every partition,
// round robin per group in creation order; a pop of one partition only
// from it.
func TestPartitions(t *testing.T) {
	s, _, _ := newStore(t, Options{})
	push(t, s, "q", "p1", `"1a"`, `"1b"`)
	push(t, s, "q", "p2", `"2a"`)
	push(t, s, "q", "p3", `"3a"`)
	got := s.Pop(context.Background(), PopRequest{Tenant: tenant, Queue: "q", Partition: "p2", Batch: 5, AutoAck: true})
	if payloads(got) != `"2a"@1` {
		t.Fatalf("pop of p2: %s", payloads(got))
	}
	var order []string
	for range 3 {
		for _, m := range s.Pop(context.Background(), PopRequest{Tenant: tenant, Queue: "q", Batch: 1, AutoAck: true}) {
			order = append(order, m.Partition+"="+string(m.Payload))
		}
	}
	if strings.Join(order, " ") != `p1="1a" p3="3a" p1="1b"` {
		t.Fatalf("round robin: %v", order)
	}
}

// TestNodeCap: what the node holds never passes MaxBytes; a push that
// could never fit is TooLarge, one that does not fit now is Full, and fits
// once an ack freed room. All or nothing. The refusal at the node's cap
// says what the push needs, never what the node holds: those bytes are
// every tenant's.
func TestNodeCap(t *testing.T) {
	s, _, reg := newStore(t, Options{MaxBytes: 1000})
	big := strings.Repeat("x", 100)
	push(t, s, "a", "", big, big, big) // 3 × 228 = 684
	_, err := s.Push(PushRequest{Tenant: "another tenant", Queue: "b", Payloads: [][]byte{[]byte(big), []byte(big)}})
	var full *FullError
	if !errors.As(err, &full) || full.Bound != BoundNode || full.Held != 684 || full.Need != 456 || full.Max != 1000 {
		t.Fatalf("push past the cap: %v", err)
	}
	if !strings.Contains(err.Error(), "QUEEN_EPHEMERAL_MAX_BYTES=1000") || !strings.Contains(err.Error(), "456") {
		t.Fatalf("message %q names no cap or need", err)
	}
	if strings.Contains(err.Error(), "684") || strings.Contains(err.Error(), "316") {
		t.Fatalf("message %q tells another tenant what the node holds", err)
	}
	wantHeld(t, s, 684, 3)
	_, err = s.Push(PushRequest{Tenant: tenant, Queue: "b", Payloads: [][]byte{make([]byte, 1000-MessageOverhead+1)}})
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Bound != BoundNode || tl.Need != 1001 {
		t.Fatalf("push over the cap: %v", err)
	}
	wantOutcomes(t, ack(s, "a", "", Completed, pop(s, "a", "", 1)...), Acked)
	push(t, s, "b", "", big, big)
	wantHeld(t, s, 912, 4)
	if n := counter(t, reg, "queen_ephemeral_refused_total", "full"); n != 1 {
		t.Fatalf("refused at the cap = %v", n)
	}
	if b := gauge(t, reg, "queen_ephemeral_bytes"); b != 912 {
		t.Fatalf("queen_ephemeral_bytes = %v", b)
	}
	if b := gauge(t, reg, "queen_ephemeral_messages"); b != 4 {
		t.Fatalf("queen_ephemeral_messages = %v", b)
	}
}

// TestQueueBounds: under reject a push past maxLength or maxBytes is
// Full (and over them alone TooLarge); under drop_oldest the oldest
// messages of the queue, across partitions, make room, leases or not.
func TestQueueBounds(t *testing.T) {
	s, _, reg := newStore(t, Options{})
	if _, err := s.Configure(tenant, "r", Patch{MaxLength: ptr(int64(2))}); err != nil {
		t.Fatal(err)
	}
	push(t, s, "r", "", `1`, `2`)
	_, err := s.Push(PushRequest{Tenant: tenant, Queue: "r", Payloads: [][]byte{[]byte(`3`)}})
	var full *FullError
	if !errors.As(err, &full) || full.Bound != BoundQueueLength || full.Held != 2 {
		t.Fatalf("push past maxLength: %v", err)
	}
	_, err = s.Push(PushRequest{Tenant: tenant, Queue: "r", Payloads: [][]byte{[]byte(`3`), []byte(`4`), []byte(`5`)}})
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Bound != BoundQueueLength {
		t.Fatalf("push over maxLength: %v", err)
	}

	drop := PolicyDropOldest
	if _, err := s.Configure(tenant, "d", Patch{MaxBytes: ptr(int64(3 * (1 + MessageOverhead))), Policy: &drop}); err != nil {
		t.Fatal(err)
	}
	push(t, s, "d", "x", `1`)
	push(t, s, "d", "y", `2`)
	leased := s.Pop(context.Background(), PopRequest{Tenant: tenant, Queue: "d", Partition: "x", Batch: 1})
	push(t, s, "d", "x", `3`)
	push(t, s, "d", "y", `4`, `5`) // drops 1 (leased) and 2
	wantOutcomes(t, ack(s, "d", "", Completed, leased...), Unknown)
	var got []string
	for _, m := range s.Pop(context.Background(), PopRequest{Tenant: tenant, Queue: "d", Batch: 10, AutoAck: true}) {
		got = append(got, m.Partition+"="+string(m.Payload))
	}
	if strings.Join(got, " ") != "x=3 y=4 y=5" {
		t.Fatalf("after drop_oldest: %v", got)
	}
	if n := counter(t, reg, "queen_ephemeral_dropped_total", "overflow"); n != 2 {
		t.Fatalf("dropped for overflow = %v", n)
	}
}

// TestDropOldestNodeCap: a drop_oldest queue makes room under the node's
// cap from its own messages only, and refuses when they are not enough.
func TestDropOldestNodeCap(t *testing.T) {
	s, _, _ := newStore(t, Options{MaxBytes: 4 * (1 + MessageOverhead)})
	drop := PolicyDropOldest
	if _, err := s.Configure(tenant, "feed", Patch{Policy: &drop}); err != nil {
		t.Fatal(err)
	}
	push(t, s, "other", "", `1`, `2`)
	push(t, s, "feed", "", `3`, `4`)
	push(t, s, "feed", "", `5`)
	if got := payloads(pop(s, "feed", "", 5)); got != "4@1 5@1" {
		t.Fatalf("feed = %s", got)
	}
	_, err := s.Push(PushRequest{Tenant: tenant, Queue: "feed", Payloads: [][]byte{[]byte(`6`), []byte(`7`), []byte(`8`)}})
	var full *FullError
	if !errors.As(err, &full) || full.Bound != BoundNode {
		t.Fatalf("push the feed cannot make room for: %v", err)
	}
	if got := payloads(pop(s, "other", "", 5)); got != "1@1 2@1" {
		t.Fatalf("the other queue lost messages: %s", got)
	}
}

// TestTTL: a message is dropped TTL after its push, leased or not.
func TestTTL(t *testing.T) {
	s, c, reg := newStore(t, Options{})
	if _, err := s.Configure(tenant, "q", Patch{TTL: ptr(10 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	push(t, s, "q", "", `1`)
	c.advance(5 * time.Second)
	push(t, s, "q", "", `2`)
	leased := pop(s, "q", "", 1)
	c.advance(5 * time.Second)
	s.Sweep()
	wantHeld(t, s, 1+MessageOverhead, 1)
	wantOutcomes(t, ack(s, "q", "", Completed, leased...), Unknown)
	if got := payloads(pop(s, "q", "", 5)); got != "2@1" {
		t.Fatalf("after the TTL: %s", got)
	}
	c.advance(5 * time.Second)
	if d, _ := s.Depth(tenant, "q"); d.Messages != 0 || d.Inflight != 0 {
		t.Fatalf("depth after the TTL: %+v", d)
	}
	if n := counter(t, reg, "queen_ephemeral_dropped_total", "ttl"); n != 2 {
		t.Fatalf("dropped for ttl = %v", n)
	}
}

// TestResetDelete: a reset drops the messages and ends the leases (acks
// of them answer stale) but keeps the options and the groups; a delete
// forgets all; an id of another incarnation is stale, one that is not an
// id unknown.
func TestResetDelete(t *testing.T) {
	s, _, _ := newStore(t, Options{})
	if _, err := s.Configure(tenant, "q", Patch{RetryLimit: ptr(7)}); err != nil {
		t.Fatal(err)
	}
	push(t, s, "q", "", `1`, `2`)
	got := pop(s, "q", "g", 1)
	if n := s.Reset(tenant, "q"); n != 2 {
		t.Fatalf("reset dropped %d", n)
	}
	wantHeld(t, s, 0, 0)
	wantOutcomes(t, ack(s, "q", "g", Completed, got...), Stale)
	d, ok := s.Depth(tenant, "q")
	if !ok || d.Messages != 0 || d.Options.RetryLimit != 7 || !d.Declared || len(d.Groups) != 1 || d.Groups[0].Pending != 0 {
		t.Fatalf("depth after reset: %+v %v", d, ok)
	}
	push(t, s, "q", "", `3`)
	if got := payloads(pop(s, "q", "g", 5)); got != "3@1" {
		t.Fatalf("after reset: %s", got)
	}
	if n := s.Reset(tenant, "absent"); n != 0 {
		t.Fatalf("reset of an absent queue dropped %d", n)
	}
	if _, ok := s.Depth(tenant, "absent"); ok {
		t.Fatal("a reset made a queue")
	}

	other, _, _ := newStore(t, Options{Incarnation: 0xe2})
	push(t, other, "q", "", `9`)
	foreign := pop(other, "q", "", 1)
	wantOutcomes(t, ack(s, "q", "", Completed, foreign...), Stale)
	wantOutcomes(t, s.Ack(AckRequest{Tenant: tenant, Queue: "q", Acks: []Ack{{ID: "not-an-id"}, {ID: "00000000000000e1-0-ff-1-0"}}}),
		Unknown, Unknown)

	held := pop(s, "q", "", 1)
	if !s.Delete(tenant, "q") || s.Delete(tenant, "q") {
		t.Fatal("delete twice did not answer true, false")
	}
	if _, ok := s.Depth(tenant, "q"); ok {
		t.Fatal("depth of a deleted queue")
	}
	wantOutcomes(t, ack(s, "q", "", Completed, held...), Stale)
}

// TestTenants: a tenant sees only its own queues.
func TestTenants(t *testing.T) {
	s, _, _ := newStore(t, Options{})
	push(t, s, "q", "", `1`)
	other := "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
	if got := s.Pop(context.Background(), PopRequest{Tenant: other, Queue: "q", Batch: 5}); len(got) != 0 {
		t.Fatalf("another tenant popped %s", payloads(got))
	}
	if qs := s.Queues(other); len(qs) != 1 || qs[0].Messages != 0 {
		t.Fatalf("other tenant's queues: %+v", qs)
	}
	if qs := s.Queues(tenant); len(qs) != 1 || qs[0].Messages != 1 || qs[0].Queue != "q" {
		t.Fatalf("tenant's queues: %+v", qs)
	}
}

// TestSweepIdle: a group that makes no call for IdleAfter and holds no
// lease is forgotten, and what only it held goes; an undeclared queue that
// holds nothing and has no group is forgotten too; a declared one stays.
func TestSweepIdle(t *testing.T) {
	s, c, _ := newStore(t, Options{IdleAfter: time.Minute})
	pop(s, "idle", "", 1)
	if _, err := s.Configure(tenant, "declared", Patch{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Configure(tenant, "fan", Patch{Lease: ptr(90 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	pop(s, "fan", "gone", 1)
	pop(s, "fan", "leased", 1)
	push(t, s, "fan", "", `1`, `2`)
	pop(s, "fan", "leased", 1) // holds 1 leased, 2 pending
	c.advance(30 * time.Second)
	first := pop(s, "fan", "live", 1) // joins late: holds both too
	c.advance(30*time.Second - 1)
	s.Sweep()
	if n := len(s.Queues(tenant)); n != 3 {
		t.Fatalf("%d queues before they were idle", n)
	}
	c.advance(1)
	s.Sweep()
	var names []string
	for _, q := range s.Queues(tenant) {
		names = append(names, q.Queue)
	}
	if strings.Join(names, ",") != "declared,fan" {
		t.Fatalf("after the sweep: %v", names)
	}
	d, _ := s.Depth(tenant, "fan")
	if d.GroupCount != 2 || d.Groups[0].Group != "leased" || d.Groups[1].Group != "live" || d.Messages != 2 {
		t.Fatalf("fan after the sweep: %+v", d)
	}
	// live settles both, then leased (its lease ended long ago, its ack
	// of 2 never came) is forgotten: what only it held is freed.
	live := append(first, pop(s, "fan", "live", 5)...)
	wantOutcomes(t, ack(s, "fan", "live", Completed, live...), Acked, Acked)
	wantHeld(t, s, 2*(1+MessageOverhead), 2)
	c.advance(time.Hour)
	s.Sweep()
	d, _ = s.Depth(tenant, "fan")
	if d.GroupCount != 0 || d.Messages != 0 {
		t.Fatalf("fan after its last groups went idle: %+v", d)
	}
	wantHeld(t, s, 0, 0)
}

// TestGroupOnNewPartition: a group that joined a queue holds the messages
// of a partition made after it, so a fan-out subscriber sees them even
// when another group settles them first.
func TestGroupOnNewPartition(t *testing.T) {
	s, _, _ := newStore(t, Options{})
	pop(s, "q", "a", 1)
	pop(s, "q", "b", 1)
	push(t, s, "q", "room-7", `1`)
	wantOutcomes(t, ack(s, "q", "a", Completed, pop(s, "q", "a", 1)...), Acked)
	if got := payloads(s.Pop(context.Background(), PopRequest{Tenant: tenant, Queue: "q", Partition: "room-7", Group: "b", Batch: 5})); got != "1@1" {
		t.Fatalf("b on the new partition: %s", got)
	}
}

// TestDepth: the gauges per partition and group.
func TestDepth(t *testing.T) {
	s, _, _ := newStore(t, Options{})
	pop(s, "q", "b", 1)
	push(t, s, "q", "", `1`, `2`, `3`)
	push(t, s, "q", "p", `4`)
	pop(s, "q", "a", 2)
	d, ok := s.Depth(tenant, "q")
	if !ok || d.Messages != 4 || d.Bytes != 4*(1+MessageOverhead) || d.PartitionCount != 2 || d.Inflight != 2 || d.Declared {
		t.Fatalf("depth %+v", d)
	}
	want := []GroupDepth{{"a", 2, 2}, {"b", 4, 0}}
	if len(d.Groups) != 2 || d.Groups[0] != want[0] || d.Groups[1] != want[1] {
		t.Fatalf("groups %+v, want %+v", d.Groups, want)
	}
	if p := d.Partitions[1]; p.Partition != "p" || p.Messages != 1 || len(p.Groups) != 2 || p.Groups[0] != (GroupDepth{"a", 1, 0}) {
		t.Fatalf("partition p %+v", p)
	}
}

// TestConfigure: a patch keeps what it does not name and refuses a value
// out of range without changing anything.
func TestConfigure(t *testing.T) {
	s, _, _ := newStore(t, Options{})
	o, err := s.Configure(tenant, "q", Patch{MaxLength: ptr(int64(5)), WindowBuffer: &WindowBuffer{Wait: time.Second, Count: 4}})
	if err != nil || o.MaxLength != 5 || o.Lease != DefaultLease || o.RetryLimit != DefaultRetryLimit || o.Policy != PolicyReject ||
		o.WindowBuffer.Count != 4 {
		t.Fatalf("configure: %+v %v", o, err)
	}
	bad := Policy("lifo")
	if _, err := s.Configure(tenant, "q", Patch{MaxBytes: ptr(int64(9)), Policy: &bad}); !errors.Is(err, ErrBadOption) {
		t.Fatalf("bad policy: %v", err)
	}
	if d, _ := s.Depth(tenant, "q"); d.Options.MaxBytes != 0 || d.Options.MaxLength != 5 {
		t.Fatalf("a refused configure changed %+v", d.Options)
	}
}

// TestIDs: an id reads back; anything else does not.
func TestIDs(t *testing.T) {
	id := msgID{inc: 0xdeadbeef, pid: 3, seq: 1 << 40, attempt: 2, group: groupHash(QueueModeGroup)}
	if got, ok := parseID(id.String()); !ok || got != id {
		t.Fatalf("%s read as %+v %v", id, got, ok)
	}
	for _, s := range []string{"", "1-2-3-4", "00000000deadbeef-3-10000000000", "00000000deadbeef-x-1-1-1", "00000000deadbeef-1-1-1-1-1", "deadbeef-1-1-1-1"} {
		if _, ok := parseID(s); ok {
			t.Errorf("%q read as an id", s)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// counter is the value of the series name{<its one label>=label}, 0 when
// there is none.
func counter(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == label {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func gauge(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no series %s", name)
	return 0
}

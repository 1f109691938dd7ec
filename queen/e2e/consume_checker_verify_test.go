package e2e

import (
	"testing"
	"time"
)

// ckSample is a good history of one partition, c-0 with four messages:
// pop 1 leases 0..2; one call acks 0 completed, 1 failed and 2 completed
// (refused: past the nack), which releases the lease; pop 2 gets 1..3
// again; an offset commit acks 3 alone (settling 1 and 2), and its retry
// answers noop.
func ckSample() (*ckHistory, map[string]int64) {
	t0 := time.Unix(1_800_000_000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	d := func(off int64, attempt int) ckDelivery {
		return ckDelivery{Part: "c-0", PID: "1", Offset: off, Attempt: attempt, TxID: "tx-" + string(rune('0'+off))}
	}
	refused := "message is not committed: a nack of offset 1 in this call returns it"
	ok := func(released bool) ackResult { return ackResult{Success: true, LeaseReleased: released} }
	h := &ckHistory{t0: t0}
	h.pops = []*ckPop{
		{Client: 1, Invoke: at(100), Complete: at(110), Code: 200, Lease: 2 * time.Second, LeaseID: "L1", Msgs: []ckDelivery{d(0, 1), d(1, 1), d(2, 1)}},
		{Client: 2, Invoke: at(300), Complete: at(310), Code: 200, Lease: 2 * time.Second, LeaseID: "L2", Msgs: []ckDelivery{d(1, 2), d(2, 2), d(3, 1)}},
	}
	h.acks = []*ckAck{
		{Client: 1, Invoke: at(200), Complete: at(210), Code: 200, LeaseID: "L1",
			Items:   []ckAckItem{{d(0, 1), "completed"}, {d(1, 1), "failed"}, {d(2, 1), "completed"}},
			Results: []ackResult{ok(false), ok(true), {Error: &refused}}},
		{Client: 2, Invoke: at(400), Complete: at(410), Code: 200, LeaseID: "L2",
			Items: []ckAckItem{{d(3, 1), "completed"}}, Results: []ackResult{ok(true)}},
		{Client: 2, Invoke: at(420), Complete: at(430), Code: 200, LeaseID: "L2", Attempt: 1,
			Items: []ckAckItem{{d(3, 1), "completed"}}, Results: []ackResult{{Success: true, Noop: true}}},
	}
	return h, map[string]int64{"c-0": 4}
}

// TestConsumeCheckerCatchesBadHistories: the consume checker passes the
// sample and finds each violation planted in a copy of it.
func TestConsumeCheckerCatchesBadHistories(t *testing.T) {
	h, hwm := ckSample()
	if v, summary := h.check(hwm); v.total() != 0 {
		t.Fatalf("the sample is a good history, yet: %v (%v)", v, summary)
	}
	t0 := h.t0
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	for _, tc := range []struct {
		name   string
		doctor func(h *ckHistory, hwm map[string]int64)
		want   string
	}{
		{"a commit answered again as a settlement", func(h *ckHistory, _ map[string]int64) {
			h.acks[2].Results[0].Noop = false
		}, "acked twice"},
		{"a completed item past the nack succeeds", func(h *ckHistory, _ map[string]int64) {
			h.acks[0].Results[2] = ackResult{Success: true}
		}, "completed past a nack"},
		{"the nacking lease settles the nacked message", func(h *ckHistory, _ map[string]int64) {
			x := *h.acks[0]
			x.Invoke, x.Complete, x.Items, x.Results = at(250), at(260), x.Items[1:2:2], []ackResult{{Success: true}}
			x.Items = []ckAckItem{{x.Items[0].ckDelivery, "completed"}}
			h.acks = append(h.acks, &x)
		}, "nack skipped"},
		{"a nack keeps its lease", func(h *ckHistory, _ map[string]int64) {
			h.acks[0].Results[1].LeaseReleased = false
		}, "ack"},
		{"a message the offset commit settled is delivered again", func(h *ckHistory, _ map[string]int64) {
			h.pops = append(h.pops, &ckPop{Client: 3, Invoke: at(600), Complete: at(610), Code: 200, Lease: 2 * time.Second, LeaseID: "L3",
				Msgs: []ckDelivery{{Part: "c-0", PID: "1", Offset: 2, Attempt: 3, TxID: "tx-2"}}})
		}, "delivered after ack"},
		{"a pop passes the nacked message", func(h *ckHistory, _ map[string]int64) {
			h.pops[1].Msgs = h.pops[1].Msgs[1:]
		}, "skip"},
		{"nothing commits the redelivered messages", func(h *ckHistory, _ map[string]int64) {
			h.acks = h.acks[:1]
		}, "never settled"},
		{"a noop on a nack", func(h *ckHistory, _ map[string]int64) {
			h.acks[0].Results[1].Noop = true
		}, "ack"},
		{"an unknown outcome of the commit, its retry a noop", func(h *ckHistory, _ map[string]int64) {
			h.acks[1].Code, h.acks[1].Results = 503, nil
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, hwm := ckSample()
			tc.doctor(h, hwm)
			v, _ := h.check(hwm)
			v.wantVerdict(t, violations{}, tc.want, "")
		})
	}
}

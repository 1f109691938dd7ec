package traces

import (
	"context"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
)

// Traces records, reads and sweeps trace events on one shard, from any
// node.
type Traces struct {
	Shard *raftlog.Shard
}

// Record stores one event as one entry. Check's refusals wrap
// raftlog.ErrRejected and come before anything is proposed; other errors
// are raftlog's (ErrTimeout: outcome unknown, and a retry may store the
// event a second time, under another id).
func (t *Traces) Record(ctx context.Context, r Record) (Recorded, error) {
	return family.Propose(ctx, t.Shard, r.Check(), r.Op(), DecodeRecorded)
}

// Read runs fn on a linearizable view (ByMessage, ByName, Names).
func (t *Traces) Read(ctx context.Context, fn func(v *raftlog.View) (any, error)) (any, error) {
	return t.Shard.Read(ctx, fn)
}

// Sweep proposes one sweep of at most limit events (1..SweepLimit) whose
// lifetime ended by the entry's stamp.
func (t *Traces) Sweep(ctx context.Context, limit int) (SweepAnswer, error) {
	return family.Propose(ctx, t.Shard, nil, SweepOp{Limit: min(max(limit, 1), SweepLimit)}.Op(), DecodeSweep)
}

// Due reports whether this node's applied state holds an event whose
// lifetime ended by its last stamp: a sweep proposed now deletes it.
func Due(v *raftlog.View) (bool, error) {
	at, ok, err := NextExpiry(v)
	return ok && at <= v.Stamp(), err
}

package consume

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// Consumer proposes pops, acks and lease extensions on a shard that runs
// Appliers. It is safe for concurrent use.
type Consumer struct {
	Shard *raftlog.Shard
	// Skew is the clock-skew margin (QUEEN_RAFT_MAX_CLOCK_SKEW_MS) a
	// partition stays held past its lease's end, so that a new leader
	// whose clock runs ahead gives it to nobody else too early.
	Skew time.Duration

	tries, proposed atomic.Uint64 // PopStats
}

// PopStats counts what pops did on this node: Tries, the attempts (a pop
// and each wake of a waiting one), and Proposed, those that became a raft
// entry; the rest found nothing on a read index and cost no entry.
type PopStats struct{ Tries, Proposed uint64 }

// Stats returns the node's pop counts so far.
func (c *Consumer) Stats() PopStats { return PopStats{c.tries.Load(), c.proposed.Load()} }

// PopRequest is one pop: what PopOp holds but the lease id and the start,
// which Pop chooses, and Wait, how long to long-poll when nothing is there.
type PopRequest struct {
	Tenant, Queue, Partition, Group string
	Batch, MaxPartitions            int
	Lease                           time.Duration // 0: the queue's leaseTime
	AutoAck                         bool
	Mode                            byte
	From                            int64
	Wait                            time.Duration
	Conflate                        bool // see PopOp.Conflate
}

// Pop leases messages. When nothing is there and req.Wait is positive it
// parks until a push to the queue or a released lease wakes it (or until
// the earliest time something blocked frees), then tries again, up to
// req.Wait. An empty PopResult means nothing came.
func (c *Consumer) Pop(ctx context.Context, req PopRequest) (PopResult, error) {
	deadline := time.Now().Add(req.Wait)
	keys := []string{queuelog.QueueWatchKey(c.Shard.ID(), req.Tenant, req.Queue)}
	if req.Partition != "" {
		keys = []string{queuelog.PartitionWatchKey(c.Shard.ID(), req.Tenant, req.Queue, req.Partition),
			ReleaseWatchKey(c.Shard.ID(), req.Tenant, req.Queue)}
	}
	for {
		// The watches come before the pop: nothing is missed between.
		wakes := make([]<-chan struct{}, len(keys))
		for i, k := range keys {
			wakes[i] = c.Shard.Watch(k)
		}
		op := PopOp{Tenant: req.Tenant, Queue: req.Queue, Group: req.Group, Partition: req.Partition,
			Start: c.start(req.Tenant, req.Queue), Batch: req.Batch, MaxPartitions: req.MaxPartitions,
			LeaseMicros: req.Lease.Microseconds(), SkewMicros: c.Skew.Microseconds(), LeaseID: uuid.NewString(),
			AutoAck: req.AutoAck, Mode: req.Mode, From: req.From, Conflate: req.Conflate}
		res, stamp, err := c.pop(ctx, &op)
		if err != nil {
			return PopResult{}, err
		}
		left := time.Until(deadline)
		if len(res.Parts) > 0 || left <= 0 {
			return res, nil
		}
		if res.NextAt > 0 {
			left = min(left, time.Duration(res.NextAt-stamp)*time.Microsecond+time.Millisecond)
		}
		t := time.NewTimer(left)
		var other <-chan struct{}
		if len(wakes) > 1 {
			other = wakes[1]
		}
		select {
		case <-ctx.Done():
			t.Stop()
			return PopResult{}, nil
		case <-wakes[0]:
		case <-other:
		case <-t.C:
		}
		t.Stop()
	}
}

// pop runs op: first as a dry run on a linearizable read, and, unless that
// finds nothing to lease and nothing to change (an empty pop), as an
// entry, which decides. An empty pop so costs a read index, no entry.
func (c *Consumer) pop(ctx context.Context, op *PopOp) (PopResult, int64, error) {
	c.tries.Add(1)
	got, err := c.Shard.DryRun(ctx, func(tx *raftlog.Txn, at raftlog.ApplyInfo) (any, error) {
		s := &state{tx: tx, v: tx.View(at), at: at}
		ans, err := op.Apply(s)
		if err != nil {
			return nil, err
		}
		res, err := DecodePopResult(ans)
		if err != nil {
			return nil, err
		}
		return dry{res, at.Stamp, tx.Writes() == 0}, nil
	})
	if err != nil {
		return PopResult{}, 0, err
	}
	if d := got.(dry); len(d.res.Parts) == 0 && d.unchanged {
		return d.res, d.stamp, nil
	}
	c.proposed.Add(1)
	ans, stamp, err := c.Shard.ProposeOp(ctx, op.Op())
	if err != nil {
		return PopResult{}, 0, err
	}
	res, err := DecodePopResult(ans)
	return res, stamp, err
}

// dry is what a dry-run pop found.
type dry struct {
	res       PopResult
	stamp     int64
	unchanged bool
}

// start picks where a queue-wide pop begins its walk: a partition at
// random among those this node knows, so that a group's consumers spread
// over the queue instead of all trying the first partition first.
func (c *Consumer) start(tenant, queue string) uint64 {
	got, err := c.Shard.LocalRead(func(v *raftlog.View) (any, error) {
		q, _, err := queuelog.Queue(v, tenant, queue)
		return q.Partitions, err
	})
	if err != nil || got.(uint64) == 0 {
		return 1
	}
	return 1 + rand.Uint64N(got.(uint64))
}

// Ack settles items, each on its own.
func (c *Consumer) Ack(ctx context.Context, tenant string, items []AckItem) ([]AckAnswer, error) {
	op := AckOp{Tenant: tenant, SkewMicros: c.Skew.Microseconds(), Items: items}
	ans, _, err := c.Shard.ProposeOp(ctx, op.Op())
	if err != nil {
		return nil, err
	}
	out, err := DecodeAckAnswers(ans)
	if err == nil && len(out) != len(items) {
		err = fmt.Errorf("consume: %d ack answers for %d items", len(out), len(items))
	}
	return out, err
}

// Extend moves a live lease's end to d after now (the broker clock);
// d 0 extends it by its own length.
func (c *Consumer) Extend(ctx context.Context, tenant, leaseID string, d time.Duration) (ExtendAnswer, error) {
	op := ExtendOp{Tenant: tenant, LeaseID: leaseID, Micros: d.Microseconds(), SkewMicros: c.Skew.Microseconds()}
	ans, _, err := c.Shard.ProposeOp(ctx, op.Op())
	if err != nil {
		return ExtendAnswer{}, err
	}
	return DecodeExtendAnswer(ans)
}

package consume

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
	"github.com/queen-mq/queen-go/raftlog"
)

// Consumer proposes pops, acks and lease extensions on a shard that runs
// Appliers. It is safe for concurrent use.
type Consumer struct {
	Shard *raftlog.Shard
	// Skew is the clock-skew margin (QUEEN_RAFT_MAX_CLOCK_SKEW_MS) a
	// partition stays held past its lease's end, so that a new leader
	// whose clock runs ahead gives it to nobody else too early.
	Skew time.Duration
}

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
}

// Pop leases messages. When nothing is there and req.Wait is positive it
// parks until a push to the queue or a released lease wakes it (or until
// the earliest time something blocked frees), then tries again, up to
// req.Wait. An empty PopResult means nothing came.
func (c *Consumer) Pop(ctx context.Context, req PopRequest) (PopResult, error) {
	deadline := time.Now().Add(req.Wait)
	key := raftlog.QueueWatchKey(c.Shard.ID(), req.Tenant, req.Queue)
	for {
		wake := c.Shard.Watch(key) // before the pop: nothing is missed between
		op := PopOp{Tenant: req.Tenant, Queue: req.Queue, Group: req.Group, Partition: req.Partition,
			Start: c.start(req.Tenant, req.Queue), Batch: req.Batch, MaxPartitions: req.MaxPartitions,
			LeaseMicros: req.Lease.Microseconds(), SkewMicros: c.Skew.Microseconds(), LeaseID: uuid.NewString(),
			AutoAck: req.AutoAck, Mode: req.Mode, From: req.From}
		ans, stamp, err := c.Shard.ProposeOp(ctx, op.Op())
		if err != nil {
			return PopResult{}, err
		}
		res, err := DecodePopResult(ans)
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
		select {
		case <-ctx.Done():
			t.Stop()
			return PopResult{}, nil
		case <-wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// start picks where a queue-wide pop begins its walk: a partition at
// random among those this node knows, so that a group's consumers spread
// over the queue instead of all trying the first partition first.
func (c *Consumer) start(tenant, queue string) uint64 {
	got, err := c.Shard.LocalRead(func(v *raftlog.View) (any, error) {
		q, _, err := v.Queue(tenant, queue)
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

// Extend moves a live lease's end to d after now (the broker clock).
func (c *Consumer) Extend(ctx context.Context, tenant, leaseID string, d time.Duration) (ExtendAnswer, error) {
	op := ExtendOp{Tenant: tenant, LeaseID: leaseID, Micros: d.Microseconds(), SkewMicros: c.Skew.Microseconds()}
	ans, _, err := c.Shard.ProposeOp(ctx, op.Op())
	if err != nil {
		return ExtendAnswer{}, err
	}
	return DecodeExtendAnswer(ans)
}

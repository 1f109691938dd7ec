// Package retention deletes what a queue's options say to delete: records
// older than retentionSeconds, and records every consumer group of the
// queue has settled that are older than completedRetentionSeconds, on the
// broker clock, as replicated trims (queuelog.TrimOp), so every node
// deletes the same records. With
// retentionSinkHold naming an S3 sink, it never deletes a record stamped
// after that sink's commit pointer less 60 s, nor reaches back further than
// retentionSinkHoldMaxSeconds (7 days by default) to keep one; the hold
// floors both cutoffs. What a trim deletes that an S3 sink has not written
// to the lake yet is noted in the trim's own entry (notes.go), so the lake
// reports it lost. Each pass also deletes the dedup entries of records
// out of their queue's dedup window (queuelog.DedupSweepOp), the KV rows
// whose TTL passed (kvstore.SweepOp), and the trace events whose lifetime
// ended (traces.SweepOp).
package retention

import (
	"context"
	"log/slog"
	"time"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/tick"
	"github.com/queen-mq/queen-go/queen/internal/traces"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/s3sink/kvdoc"

	"github.com/queen-mq/queen-go/contract"

	"math"
)

// DefaultHoldMaxSeconds caps the hold unless the queue says otherwise
// (a stored 0, as on push-created queues, reads as the default).
const DefaultHoldMaxSeconds = 604_800

// holdSlack is how far below the commit pointer's end the hold floors.
const holdSlack = 60 * time.Second

// Job runs retention on the leader of one shard.
type Job struct {
	Shard    *raftlog.Shard
	KV       *kvstore.Store
	NodeID   uint64
	Interval time.Duration
	Log      *slog.Logger
}

// Run trims every Interval while this node leads, until ctx ends.
func (j *Job) Run(ctx context.Context) {
	tick.Every(ctx, j.Interval, func() {
		if j.Shard.Leader() == j.NodeID {
			j.Once(ctx)
		}
	})
}

// Once runs one pass over every queue.
func (j *Job) Once(ctx context.Context) {
	// What retention proposes frees space, or is the note that lets a trim
	// go (the sink's lost records): it passes the storage gate.
	ctx = raftlog.AllowWhenFull(ctx)
	got, err := j.Shard.LocalRead(func(v *raftlog.View) (any, error) { return queuelog.AllQueues(v) })
	if err != nil {
		j.Log.Warn("retention: list queues", "err", err)
		return
	}
	now := j.Shard.SafeTime()
	defer j.sweepTraces(ctx)
	defer j.sweepKV(ctx)
	p := &pass{j: j, docs: map[string]*sinkDocs{}}
	for _, q := range got.([]queuelog.TenantQueue) {
		// Every option is read within its range (contract.QueueOptionTable),
		// and the arithmetic saturates: a cutoff never wraps past now.
		o := contract.ParseQueueOptions(q.Options)
		j.sweepDedup(ctx, q.Tenant, q.Name, contract.SubSat(now, contract.Micros(o.DedupWindowSeconds)))
		if o.CompletedRetentionSeconds == 0 && (!o.RetentionEnabled || o.RetentionSeconds <= 0) {
			continue
		}
		// The sink hold floors both cutoffs (SINK-CONFIG.md §7).
		floor := int64(math.MaxInt64)
		if o.RetentionSinkHold != "" {
			floor = j.holdFloor(ctx, q.Tenant, q.Name, o, now)
		}
		if o.CompletedRetentionSeconds > 0 {
			j.completed(ctx, p, q.Tenant, q.Name, min(contract.SubSat(now, contract.Micros(o.CompletedRetentionSeconds)), floor))
		}
		if !o.RetentionEnabled || o.RetentionSeconds <= 0 {
			continue
		}
		cutoff := min(contract.SubSat(now, contract.Micros(o.RetentionSeconds)), floor)
		if cutoff <= 0 {
			continue
		}
		n, err := p.trim(ctx, q.Tenant, q.Name, "", cutoff)
		if err != nil {
			j.Log.Warn("retention: trim", "tenant", q.Tenant, "queue", q.Name, "err", err)
		}
		if n > 0 {
			j.Log.Info("retention deleted records", "tenant", q.Tenant, "queue", q.Name, "records", n,
				"before", lakeformat.FormatTs(cutoff))
		}
	}
}

// dedupSweepLimit bounds the records one dedup sweep entry looks at, and
// dedupSweepsPerPass the entries a pass proposes for one partition.
const (
	dedupSweepLimit    = 10_000
	dedupSweepsPerPass = 20
)

// sweepDedup deletes the dedup entries of a queue's records stamped before
// cutoff (the dedup window's start), partition by partition: the entries
// otherwise lived as long as their records. Within the window nothing
// changes: the entry decides a retry there, across restarts and leader
// changes alike.
func (j *Job) sweepDedup(ctx context.Context, tenant, queue string, cutoff int64) {
	var due []string
	_, err := j.Shard.LocalRead(func(v *raftlog.View) (any, error) {
		return nil, queuelog.EachPartition(v, tenant, queue, 0, func(p queuelog.PartitionInfo) (bool, error) {
			if p.DedupFrom > p.LastOffset {
				return true, nil
			}
			at, err := queuelog.OffsetForTime(v, tenant, queue, p.Name, cutoff)
			if err != nil {
				return false, err
			}
			if !at.Found {
				at.Offset = at.HighWatermark
			}
			if p.DedupFrom < at.Offset {
				due = append(due, p.Name)
			}
			return true, nil
		})
	})
	if err != nil {
		j.Log.Warn("retention: dedup entries", "tenant", tenant, "queue", queue, "err", err)
		return
	}
	for _, name := range due {
		for range dedupSweepsPerPass {
			n, err := queuelog.DedupSweep(ctx, j.Shard, queuelog.DedupSweepOp{Tenant: tenant, Queue: queue, Partition: name, Limit: dedupSweepLimit})
			if err != nil {
				j.Log.Warn("retention: dedup sweep", "tenant", tenant, "queue", queue, "partition", name, "err", err)
				return
			}
			if n < dedupSweepLimit/2 {
				break // caught up (or nearly: the next pass goes on)
			}
		}
	}
}

// kvSweepsPerPass bounds the sweep entries of one namespace in a pass.
const kvSweepsPerPass = 20

// sweepKV deletes the KV rows whose TTL passed on the broker clock
// (kvstore.SweepOp), so that a namespace of TTL keys does not grow for
// ever: each namespace due, until a sweep deletes less than its limit.
func (j *Job) sweepKV(ctx context.Context) {
	got, err := j.Shard.LocalRead(func(v *raftlog.View) (any, error) { return kvstore.DueSweeps(v, v.Stamp()) })
	if err != nil {
		j.Log.Warn("retention: expired KV rows", "err", err)
		return
	}
	for _, op := range got.([]kvstore.SweepOp) {
		for range kvSweepsPerPass {
			n, err := j.KV.Sweep(ctx, op)
			if err != nil {
				j.Log.Warn("retention: KV sweep", "tenant", op.Tenant, "namespace", op.NS, "err", err)
				return
			}
			if n < uint64(op.Limit) {
				break
			}
		}
	}
}

// tracesSweepsPerPass bounds the sweep entries of trace events in a pass
// (each deletes at most traces.SweepLimit events).
const tracesSweepsPerPass = 20

// sweepTraces deletes the trace events whose lifetime ended on the broker
// clock (traces.SweepOp), so that traces do not grow for ever: sweeps
// until one finds no more due, at most tracesSweepsPerPass of them (the
// next pass goes on).
func (j *Job) sweepTraces(ctx context.Context) {
	got, err := j.Shard.LocalRead(func(v *raftlog.View) (any, error) { return traces.Due(v) })
	if err != nil {
		j.Log.Warn("retention: expired trace events", "err", err)
		return
	}
	if !got.(bool) {
		return
	}
	t := &traces.Traces{Shard: j.Shard}
	deleted := 0
	for range tracesSweepsPerPass {
		a, err := t.Sweep(ctx, traces.SweepLimit)
		if err != nil {
			j.Log.Warn("retention: trace sweep", "err", err)
			break
		}
		deleted += a.Deleted
		if !a.More {
			break
		}
	}
	if deleted > 0 {
		j.Log.Info("retention deleted trace events", "events", deleted)
	}
}

// HoldFloor is the stamp below which the named sink lets retention delete:
// its commit pointer's end less 60 s, but never further back than the cap;
// with no (readable) pointer, the cap alone.
func HoldFloor(committed []byte, found bool, maxSeconds, now int64) int64 {
	if maxSeconds <= 0 {
		maxSeconds = DefaultHoldMaxSeconds
	}
	floor := contract.SubSat(now, contract.Micros(maxSeconds))
	if !found {
		return floor
	}
	// The sink's own reader of its pointer's end (its k is not the hold's
	// business). A 1.5 pointer's integer tEnd, which the engine reads as
	// its own, counts here as no pointer, as it always has for the hold.
	tEnd, legacy, err := kvdoc.CommittedEnd(committed)
	if err != nil || legacy {
		return floor
	}
	return max(tEnd-holdSlack.Microseconds(), floor)
}

func (j *Job) holdFloor(ctx context.Context, tenant, queue string, o contract.QueueOptions, now int64) int64 {
	key := kvdoc.CommittedKey(o.RetentionSinkHold, queue)
	a, err := j.KV.Do(ctx, tenant, []kvstore.Op{{Op: kvstore.OpGet, NS: kvdoc.Namespace, Key: key}})
	if err != nil {
		j.Log.Warn("retention: read the sink hold; deleting nothing this pass", "tenant", tenant, "queue", queue, "err", err)
		return 0
	}
	r := a.Results[0]
	return HoldFloor(r.Value, r.Found, o.RetentionSinkHoldMaxSeconds, now)
}

// completed trims, partition by partition, the records below every
// consumer group's cursor that are stamped before cutoff. Stamps never
// decrease along a partition, so "below the lowest cursor" is "stamped
// before the record at that cursor". A queue no group reads keeps all.
func (j *Job) completed(ctx context.Context, p *pass, tenant, queue string, cutoff int64) {
	got, err := j.Shard.LocalRead(func(v *raftlog.View) (any, error) {
		groups, err := consume.Groups(v, tenant, queue, "")
		if err != nil {
			return nil, err
		}
		lowest := map[string]int64{} // partition → lowest cursor over the queue's groups
		var order []string
		for _, g := range groups {
			for _, p := range g.Partitions {
				if c, ok := lowest[p.Partition]; !ok || p.Cursor < c {
					if !ok {
						order = append(order, p.Partition)
					}
					lowest[p.Partition] = p.Cursor
				}
			}
		}
		var trims []queuelog.TrimOp
		for _, name := range order {
			before := cutoff
			at, err := queuelog.ReadRecords(v, tenant, queue, name, lowest[name], queuelog.ReadLimits{MaxRecords: 1})
			if err == nil && len(at.Records) > 0 {
				before = min(before, at.Records[0].Ts)
			}
			trims = append(trims, queuelog.TrimOp{Tenant: tenant, Queue: queue, Partition: name, Before: before})
		}
		return trims, nil
	})
	if err != nil {
		j.Log.Warn("retention: completed records", "tenant", tenant, "queue", queue, "err", err)
		return
	}
	for _, op := range got.([]queuelog.TrimOp) {
		n, err := p.trim(ctx, op.Tenant, op.Queue, op.Partition, op.Before)
		if err != nil {
			j.Log.Warn("retention: trim completed", "tenant", tenant, "queue", queue, "partition", op.Partition, "err", err)
			continue
		}
		if n > 0 {
			j.Log.Info("retention deleted completed records", "tenant", tenant, "queue", queue, "partition", op.Partition, "records", n)
		}
	}
}

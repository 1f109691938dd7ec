package raftlog_test

import (
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// init links the queue log into the state machine's internal tests
// (queuelog_link_internal_test.go says why they need this).
func init() {
	q := &raftlog.QueueLog
	q.Appliers = queuelog.Appliers
	q.Op = func(op any) raftlog.Op {
		switch o := op.(type) {
		case raftlog.PushOp:
			return (&queuelog.PushOp{Tenant: o.Tenant, Items: o.Items}).Op()
		case raftlog.ConfigureOp:
			return (*queuelog.ConfigureOp)(&o).Op()
		case raftlog.TrimOp:
			return (*queuelog.TrimOp)(&o).Op()
		case raftlog.DedupSweepOp:
			return (*queuelog.DedupSweepOp)(&o).Op()
		}
		panic(fmt.Sprintf("raftlog_test: no queue op %T", op))
	}
	q.DecodePushAnswers = func(b []byte) ([]raftlog.PushAnswer, error) {
		as, err := queuelog.DecodePushAnswers(b)
		out := make([]raftlog.PushAnswer, len(as))
		for i, a := range as {
			out[i] = raftlog.PushAnswer(a)
		}
		return out, err
	}
	q.ReadRecords = func(v *raftlog.View, tenant, queue, partition string, from int64, lim raftlog.ReadLimits) (raftlog.Batch, error) {
		b, err := queuelog.ReadRecords(v, tenant, queue, partition, from, queuelog.ReadLimits(lim))
		out := raftlog.Batch{HighWatermark: b.HighWatermark, LogStart: b.LogStart}
		for _, r := range b.Records {
			out.Records = append(out.Records, raftlog.Record(r))
		}
		return out, err
	}
	q.PartitionsChanged = func(v *raftlog.View, tenant, queue string, since int64, after uint64, limit int) ([]raftlog.PartitionInfo, uint64, error) {
		ps, next, err := queuelog.PartitionsChanged(v, tenant, queue, since, after, limit)
		out := make([]raftlog.PartitionInfo, len(ps))
		for i, p := range ps {
			out[i] = raftlog.PartitionInfo(p)
		}
		return out, next, err
	}
}

package retention

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/queen/internal/sinkadapter"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/s3sink"
	"github.com/queen-mq/queen-go/s3sink/kvdoc"
)

// A trim can delete records an S3 sink has not written to the lake yet:
// no node ran the queue's sink while they aged out, or it lagged past the
// hold's cap. The lake then never holds them, and the sink must say so in
// a manifest's lost ranges, exactly. So a trim of a queue that some sink
// mirrors is proposed partition by partition, each in one entry with the
// lost notes of the records it deletes that a sink still owes
// (s3sink.LostNotes), fenced by checks of the sink's documents as read: a
// sink that moved a pointer meanwhile rolls the entry back, nothing is
// deleted, and the next pass tries again with what the sink holds then.

// errFenceMoved: a sink wrote a document between the read and the trim.
var errFenceMoved = errors.New("retention: a sink's documents moved; trimmed nothing, the next pass tries again")

// sinkDocs are the S3 sink documents of one tenant, read once per pass
// (again after a noted trim wrote some).
type sinkDocs struct {
	rows  []s3sink.Row
	byKey map[string]s3sink.Row
}

func (d *sinkDocs) get(key string) s3sink.Row {
	if r, ok := d.byKey[key]; ok {
		return r
	}
	return s3sink.Row{Key: key}
}

// pass is what one retention pass reads once per tenant.
type pass struct {
	j    *Job
	docs map[string]*sinkDocs // by tenant
}

func (p *pass) sinkDocs(ctx context.Context, tenant string) (*sinkDocs, error) {
	if d, ok := p.docs[tenant]; ok {
		return d, nil
	}
	kv := sinkadapter.KV{Store: p.j.KV}
	d := &sinkDocs{byKey: map[string]s3sink.Row{}}
	for after := ""; ; {
		rows, next, err := kv.Prefix(ctx, tenant, kvdoc.Namespace, "s3:", after, 1000)
		if err != nil {
			return nil, fmt.Errorf("read the sinks' documents: %w", err)
		}
		for _, r := range rows {
			d.rows = append(d.rows, r)
			d.byKey[r.Key] = r
		}
		if next == "" {
			break
		}
		after = next
	}
	p.docs[tenant] = d
	return d, nil
}

// trim deletes the records of queue stamped before before, of one
// partition or ("") of all, noting what a sink still owes the lake of
// them. It answers how many it deleted.
func (p *pass) trim(ctx context.Context, tenant, queue, partition string, before int64) (uint64, error) {
	docs, err := p.sinkDocs(ctx, tenant)
	if err != nil {
		return 0, err
	}
	debts, err := s3sink.Debts(docs.rows, queue)
	if err != nil {
		return 0, fmt.Errorf("%w: deleting nothing rather than records a sink owes unnoted", err)
	}
	op := queuelog.TrimOp{Tenant: tenant, Queue: queue, Partition: partition, Before: before}
	if len(debts) == 0 {
		return queuelog.Trim(ctx, p.j.Shard, op)
	}
	names := []string{partition}
	if partition == "" {
		names = nil
		_, err := p.j.Shard.LocalRead(func(v *raftlog.View) (any, error) {
			return nil, queuelog.EachPartition(v, tenant, queue, 0, func(pi queuelog.PartitionInfo) (bool, error) {
				if pi.LastOffset >= pi.LogStart {
					names = append(names, pi.Name)
				}
				return true, nil
			})
		})
		if err != nil {
			return 0, err
		}
	}
	var total uint64
	for _, name := range names {
		n, err := p.trimNoted(ctx, tenant, queue, name, before, debts, docs)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// trimNoted trims one partition in one entry with the lost notes of what
// it deletes.
func (p *pass) trimNoted(ctx context.Context, tenant, queue, name string, before int64, debts []s3sink.Debt, docs *sinkDocs) (uint64, error) {
	var notes []s3sink.KVOp
	_, err := p.j.Shard.LocalRead(func(v *raftlog.View) (any, error) {
		pi, err := queuelog.Partition(v, tenant, queue, name)
		if errors.Is(err, queuelog.ErrUnknownPartition) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		offsetAt := func(ts int64) (int64, error) {
			a, err := queuelog.OffsetForTime(v, tenant, queue, name, ts)
			if !a.Found {
				return a.HighWatermark, err
			}
			return a.Offset, err
		}
		end, err := offsetAt(before) // the first offset the trim keeps
		if err != nil {
			return nil, err
		}
		notes, err = s3sink.LostNotes(debts, queue, name, pi.LogStart, end-1, offsetAt, docs.get)
		return nil, err
	})
	if err != nil {
		return 0, err
	}
	trim := queuelog.TrimOp{Tenant: tenant, Queue: queue, Partition: name, Before: before}
	if len(notes) == 0 {
		return queuelog.Trim(ctx, p.j.Shard, trim)
	}
	kvOp, err := kvstore.Encode(tenant, sinkadapter.Ops(kvdoc.Namespace, notes))
	if err != nil {
		return 0, err
	}
	res, err := p.j.Shard.Propose(ctx, raftlog.Command{Ops: []raftlog.Op{kvOp, trim.Op()}})
	delete(p.docs, tenant) // the notes moved: read the documents again
	if err != nil {
		return 0, err
	}
	if !res.Applied() {
		if reason, ok := raftlog.Rejected(res.Ops[res.Aborted]); ok {
			return 0, fmt.Errorf("%w: %s", raftlog.ErrRejected, reason)
		}
		return 0, errFenceMoved
	}
	n, _ := binary.Uvarint(res.Ops[1])
	for _, op := range notes {
		if op.Kind == s3sink.KVPut {
			p.j.Log.Warn("retention deleted records an S3 sink has not written to the lake: noted, the lake reports them lost",
				"tenant", tenant, "queue", queue, "partition", name, "note", string(op.Value))
		}
	}
	return n, nil
}

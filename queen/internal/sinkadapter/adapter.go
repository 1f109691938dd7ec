// Package sinkadapter gives the S3 sink the broker it runs in: s3sink's
// Log over raftlog's queue log (this node's applied state) and its KV over
// kvstore, in memory, no HTTP between.
package sinkadapter

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/s3sink"
)

// Log reads the queue log from this node's applied state.
type Log struct {
	Shard *raftlog.Shard
	// Open gives the payload a stored one holds (seal.Sealer.Open: the
	// plaintext of a sealed payload); nil passes payloads as stored.
	Open func(stored []byte) (payload []byte, ok bool)
}

var _ s3sink.Log = Log{}

func (l Log) read(fn func(v *raftlog.View) (any, error)) (any, error) { return l.Shard.LocalRead(fn) }

// Partitions pages a queue's partitions written since a time.
func (l Log) Partitions(ctx context.Context, tenant, queue string, since int64, after string, limit int) (s3sink.PartitionPage, error) {
	var cursor uint64
	if after != "" {
		var err error
		if cursor, err = strconv.ParseUint(after, 10, 64); err != nil {
			return s3sink.PartitionPage{}, err
		}
	}
	var page s3sink.PartitionPage
	_, err := l.read(func(v *raftlog.View) (any, error) {
		page.SafeTime = v.Stamp()
		parts, next, err := queuelog.PartitionsChanged(v, tenant, queue, since, cursor, limit)
		if err != nil {
			return nil, err
		}
		for _, p := range parts {
			page.Partitions = append(page.Partitions, s3sink.PartitionInfo{Name: p.Name, ID: uuidString(p.ID),
				LastOffset: p.LastOffset, LogStart: p.LogStart, LastWrite: p.LastWrite})
		}
		if next != 0 {
			page.Next = strconv.FormatUint(next, 10)
		}
		return nil, nil
	})
	return page, mapLogErr(err)
}

// Fetch reads a partition's records as the lake's: each names its
// partition, and carries its ts and payload (opened when sealed).
func (l Log) Fetch(ctx context.Context, tenant, queue, partition string, offset int64, maxBytes int) (s3sink.FetchResult, error) {
	got, err := l.read(func(v *raftlog.View) (any, error) {
		return queuelog.ReadRecords(v, tenant, queue, partition, offset, queuelog.ReadLimits{MaxRecords: 10_000, MaxBytes: maxBytes})
	})
	var b queuelog.Batch
	if got != nil {
		b = got.(queuelog.Batch)
	}
	res := s3sink.FetchResult{HighWatermark: b.HighWatermark, LogStart: b.LogStart}
	if err != nil {
		// ReadRecords answers the log start with an out-of-range offset.
		if errors.Is(err, queuelog.ErrOffsetOutOfRange) {
			got, _ := l.read(func(v *raftlog.View) (any, error) {
				b, _ := queuelog.ReadRecords(v, tenant, queue, partition, 0, queuelog.ReadLimits{MaxRecords: 1})
				return b, nil
			})
			if got != nil {
				res.LogStart, res.HighWatermark = got.(queuelog.Batch).LogStart, got.(queuelog.Batch).HighWatermark
			}
		}
		return res, mapLogErr(err)
	}
	for _, r := range b.Records {
		payload := r.Payload
		if l.Open != nil {
			payload, _ = l.Open(payload)
		}
		res.Records = append(res.Records, lakeformat.Record{Partition: partition, Offset: r.Offset, TransactionID: r.TransactionID, Ts: r.Ts, Payload: payload})
	}
	return res, nil
}

// OffsetAt finds the first offset stamped at or after ts.
func (l Log) OffsetAt(ctx context.Context, tenant, queue, partition string, ts int64) (int64, error) {
	got, err := l.read(func(v *raftlog.View) (any, error) { return queuelog.OffsetForTime(v, tenant, queue, partition, ts) })
	if err != nil {
		return 0, mapLogErr(err)
	}
	at := got.(queuelog.OffsetAt)
	if !at.Found {
		return at.HighWatermark, nil
	}
	return at.Offset, nil
}

// Queues lists a tenant's queues.
func (l Log) Queues(ctx context.Context, tenant string) ([]string, error) {
	got, err := l.read(func(v *raftlog.View) (any, error) { return queuelog.Queues(v, tenant) })
	if err != nil {
		return nil, mapLogErr(err)
	}
	var names []string
	for _, q := range got.([]queuelog.QueueInfo) {
		names = append(names, q.Name)
	}
	return names, nil
}

// SafeTime is this node's safeTime.
func (l Log) SafeTime(ctx context.Context) (int64, error) { return l.Shard.SafeTime(), nil }

func mapLogErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, queuelog.ErrUnknownPartition):
		return errors.Join(s3sink.ErrQueueNotFound, err)
	case errors.Is(err, queuelog.ErrOffsetOutOfRange):
		return errors.Join(s3sink.ErrOffsetOutOfRange, err)
	}
	return err
}

func uuidString(id [16]byte) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, 36)
	for i, c := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hex[c>>4], hex[c&0xf])
	}
	return string(b)
}

// KV is the tenant's KV store.
type KV struct{ Store *kvstore.Store }

var _ s3sink.KV = KV{}

// Get reads keys.
func (k KV) Get(ctx context.Context, tenant, ns string, keys []string) ([]s3sink.Row, error) {
	a, err := k.Store.Do(ctx, tenant, []kvstore.Op{{Op: kvstore.OpGetMany, NS: ns, Keys: keys}})
	if err != nil {
		return nil, err
	}
	found := map[string]kvstore.Row{}
	for _, r := range a.Results[0].Rows {
		found[r.Key] = r
	}
	out := make([]s3sink.Row, len(keys))
	for i, key := range keys {
		out[i] = s3sink.Row{Key: key}
		if r, ok := found[key]; ok {
			out[i] = s3sink.Row{Key: key, Found: true, Value: r.Value, Version: int64(r.Version)}
		}
	}
	return out, nil
}

// Batch runs ops as one KV call. The sink's rows (leases, presence,
// intents, pointers) pass the storage gate: a sink must keep its leases
// and drain while a disk is full (raftlog.AllowWhenFull).
func (k KV) Batch(ctx context.Context, tenant, ns string, ops []s3sink.KVOp) (s3sink.BatchResult, error) {
	kops := Ops(ns, ops)
	a, err := k.Store.Do(raftlog.AllowWhenFull(ctx), tenant, kops)
	if err != nil {
		return s3sink.BatchResult{}, err
	}
	if !a.OK {
		return s3sink.BatchResult{OK: false, FailedIndex: a.FailedIndex, Results: make([]s3sink.OpResult, len(ops))}, nil
	}
	res := s3sink.BatchResult{OK: true, Results: make([]s3sink.OpResult, len(ops))}
	for i, r := range a.Results {
		res.Results[i] = s3sink.OpResult{Applied: r.Applied, Reason: r.Reason, Version: int64(r.Version), Value: r.Value}
	}
	return res, nil
}

// Prefix pages rows by key prefix.
func (k KV) Prefix(ctx context.Context, tenant, ns, prefix, after string, limit int) ([]s3sink.Row, string, error) {
	a, err := k.Store.Do(ctx, tenant, []kvstore.Op{{Op: kvstore.OpGetPrefix, NS: ns, Prefix: prefix, After: after, Limit: limit}})
	if err != nil {
		return nil, "", err
	}
	r := a.Results[0]
	var rows []s3sink.Row
	for _, row := range r.Rows {
		rows = append(rows, s3sink.Row{Key: row.Key, Found: true, Value: row.Value, Version: int64(row.Version)})
	}
	next := ""
	if r.Truncated {
		next = r.NextAfter
	}
	return rows, next, nil
}

// Ops turns the sink's KV ops into kvstore's, in namespace ns: a put or
// putIfAbsent with a TTL of whole seconds (at least 1) or forever, a
// delete, a check.
func Ops(ns string, ops []s3sink.KVOp) []kvstore.Op {
	kops := make([]kvstore.Op, len(ops))
	for i, o := range ops {
		op := kvstore.Op{NS: ns, Key: o.Key, Value: json.RawMessage(o.Value), Expect: o.Expect, Required: o.Required}
		switch o.Kind {
		case s3sink.KVPut:
			op.Op = kvstore.OpPut
		case s3sink.KVPutIfAbsent:
			op.Op = kvstore.OpPutIfAbsent
		case s3sink.KVDelete:
			op.Op, op.Value = kvstore.OpDelete, nil
		case s3sink.KVCheck:
			op.Op, op.Value = kvstore.OpCheck, nil
		}
		if o.Kind == s3sink.KVPut || o.Kind == s3sink.KVPutIfAbsent {
			if o.TTL > 0 {
				ttl := int64(max(o.TTL/time.Second, 1))
				op.TTLSeconds = &ttl
			} else {
				op.Forever = true
			}
		}
		kops[i] = op
	}
	return kops
}

package broker

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// The per-entry error codes of the read routes (API.md §4).
const (
	unknownPartition = "UNKNOWN_TOPIC_OR_PARTITION"
	outOfRange       = "OFFSET_OUT_OF_RANGE"
	badCursor        = "BAD_CURSOR"
)

// maxFetchRecords bounds the records of one fetch entry.
const maxFetchRecords = 10_000

// Fetch reads records by offset from this node's applied state. When the
// answer holds fewer than MinBytes and MaxWaitMs allows, it parks until a
// record arrives on one of the partitions asked, then reads again.
func (b *Broker) Fetch(ctx context.Context, tenant string, req httpd.FetchRequest) ([]httpd.FetchEntry, error) {
	wait, cancel := context.WithTimeout(ctx, time.Duration(req.MaxWaitMs)*time.Millisecond)
	defer cancel()
	for {
		out, size, failed, err := b.fetchOnce(tenant, req)
		if err != nil || failed || req.MinBytes <= 0 || size >= req.MinBytes || wait.Err() != nil {
			return out, err
		}
		b.waitAny(wait, tenant, req.Entries, out)
		if ctx.Err() != nil {
			return out, nil // the request ended while parked: what was there before
		}
	}
}

// fetchOnce reads every entry once. size counts each record as at least one
// byte; failed is true when an entry has an error (the answer goes back at
// once then).
func (b *Broker) fetchOnce(tenant string, req httpd.FetchRequest) ([]httpd.FetchEntry, int, bool, error) {
	out := make([]httpd.FetchEntry, len(req.Entries))
	size, failed := 0, false
	_, err := b.shard.LocalRead(func(v *raftlog.View) (any, error) {
		for i, q := range req.Entries {
			e := httpd.FetchEntry{Queue: q.Queue, Partition: q.Partition}
			batch, err := queuelog.ReadRecords(v, tenant, q.Queue, q.Partition, q.Offset,
				queuelog.ReadLimits{MaxRecords: maxFetchRecords, MaxBytes: q.MaxBytes})
			switch {
			case errors.Is(err, queuelog.ErrUnknownPartition):
				e.Error, failed = unknownPartition, true
			case errors.Is(err, queuelog.ErrOffsetOutOfRange):
				e.Error, failed = outOfRange, true
			case err != nil:
				return nil, err
			}
			e.HighWatermark, e.LogStartOffset = batch.HighWatermark, batch.LogStart
			for _, r := range batch.Records {
				e.Records = append(e.Records, httpd.FetchRecord{Offset: r.Offset, TransactionID: r.TransactionID,
					Payload: b.open(r.Payload), Ts: r.Ts, ProducerSub: r.ProducerSub})
				size += max(len(r.Payload), 1)
			}
			out[i] = e
		}
		return nil, nil
	})
	return out, size, failed, mapErr(err)
}

// waitAny returns when one of the entries' partitions gains a record past
// what was read, or when ctx ends.
func (b *Broker) waitAny(ctx context.Context, tenant string, qs []httpd.FetchQuery, got []httpd.FetchEntry) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{}, len(qs))
	for i, q := range qs {
		next := q.Offset + int64(len(got[i].Records))
		go func() {
			if queuelog.WaitRecords(ctx, b.shard, tenant, q.Queue, q.Partition, next) == nil {
				done <- struct{}{}
			}
		}()
	}
	select {
	case <-ctx.Done():
	case <-done:
	}
}

// FetchOffsets finds the first offset at or after each entry's time.
func (b *Broker) FetchOffsets(ctx context.Context, tenant string, qs []httpd.OffsetQuery) ([]httpd.OffsetAnswer, error) {
	out := make([]httpd.OffsetAnswer, len(qs))
	_, err := b.shard.LocalRead(func(v *raftlog.View) (any, error) {
		for i, q := range qs {
			a := httpd.OffsetAnswer{Queue: q.Queue, Partition: q.Partition}
			at, err := queuelog.OffsetForTime(v, tenant, q.Queue, q.Partition, q.Ts)
			switch {
			case errors.Is(err, queuelog.ErrUnknownPartition):
				a.Error = unknownPartition
			case err != nil:
				return nil, err
			}
			a.Found, a.Offset, a.Ts, a.HighWatermark, a.LogStartOffset = at.Found, at.Offset, at.Stamp, at.HighWatermark, at.LogStart
			out[i] = a
		}
		return nil, nil
	})
	return out, mapErr(err)
}

// PartitionsChanged pages each queue's partitions written since a time.
func (b *Broker) PartitionsChanged(ctx context.Context, tenant string, qs []httpd.ChangedQuery) (httpd.ChangedAnswer, error) {
	var ans httpd.ChangedAnswer
	_, err := b.shard.LocalRead(func(v *raftlog.View) (any, error) {
		ans.SafeTime = v.Stamp()
		for _, q := range qs {
			e := httpd.ChangedEntry{Queue: q.Queue}
			after, err := parseCursor(q.After)
			if err != nil {
				e.Error = badCursor
				ans.Entries = append(ans.Entries, e)
				continue
			}
			since := int64(math.MinInt64)
			if q.Since != nil {
				since = *q.Since
			}
			parts, next, err := queuelog.PartitionsChanged(v, tenant, q.Queue, since, after, q.Limit)
			switch {
			case errors.Is(err, queuelog.ErrUnknownPartition):
				e.Error = unknownPartition
			case err != nil:
				return nil, err
			}
			for _, p := range parts {
				e.Partitions = append(e.Partitions, changedPartition(p))
			}
			if next != 0 {
				e.Next = strconv.FormatUint(next, 10)
			}
			ans.Entries = append(ans.Entries, e)
		}
		return nil, nil
	})
	return ans, mapErr(err)
}

func changedPartition(p queuelog.PartitionInfo) httpd.ChangedPartition {
	return httpd.ChangedPartition{Name: p.Name, ID: p.ID, LastOffset: p.LastOffset, LogStart: p.LogStart, LastWrite: p.LastWrite}
}

// parseCursor reads the opaque cursor of partitions/changed: the creation
// sequence of the last partition of the previous page.
func parseCursor(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	return strconv.ParseUint(s, 10, 64)
}

// Queues lists a tenant's queues.
func (b *Broker) Queues(ctx context.Context, tenant string) ([]httpd.QueueSummary, error) {
	got, err := b.shard.LocalRead(func(v *raftlog.View) (any, error) { return queuelog.Queues(v, tenant) })
	if err != nil {
		return nil, mapErr(err)
	}
	var out []httpd.QueueSummary
	for _, q := range got.([]queuelog.QueueInfo) {
		out = append(out, queueSummary(tenant, q))
	}
	return out, nil
}

// Queue describes one queue, with its partitions.
func (b *Broker) Queue(ctx context.Context, tenant, name string) (httpd.QueueDetail, bool, error) {
	var d httpd.QueueDetail
	var found bool
	_, err := b.shard.LocalRead(func(v *raftlog.View) (any, error) {
		q, ok, err := queuelog.Queue(v, tenant, name)
		if err != nil || !ok {
			return nil, err
		}
		found = true
		d = httpd.QueueDetail{QueueSummary: queueSummary(tenant, q), Options: q.Options}
		return nil, queuelog.EachPartition(v, tenant, name, 0, func(p queuelog.PartitionInfo) (bool, error) {
			d.Partitions = append(d.Partitions, changedPartition(p))
			return true, nil
		})
	})
	return d, found, mapErr(err)
}

var _ httpd.KVConsole = (*Broker)(nil)

// KVNamespaces lists the tenant's KV namespaces with their exact counts of
// live keys.
func (b *Broker) KVNamespaces(ctx context.Context, tenant string) (json.Marshaler, error) {
	ns, err := b.kv.Namespaces(ctx, tenant)
	if err != nil {
		return nil, mapErr(err)
	}
	return contract.KVCounts(ns), nil
}

// KVList reads one page of a namespace's rows for the console.
func (b *Broker) KVList(ctx context.Context, tenant string, q httpd.KVListQuery) (json.Marshaler, error) {
	a, err := b.kv.List(ctx, tenant, kvstore.ListQuery{NS: q.Namespace, Prefix: q.Prefix, After: q.After, Limit: q.Limit,
		KeysOnly: q.KeysOnly, IncludeExpired: q.IncludeExpired})
	if err != nil {
		return nil, mapErr(err)
	}
	return a, nil
}

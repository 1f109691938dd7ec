package broker

import (
	"context"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/queen/internal/traces"
	"github.com/queen-mq/queen-go/raftlog"
)

var _ httpd.Tracer = (*Broker)(nil)

// RecordTrace stores one trace event as one entry, with this node's
// QUEEN_TRACES_RETENTION_S as its lifetime.
func (b *Broker) RecordTrace(ctx context.Context, tenant string, ev httpd.TraceEvent) (httpd.TraceRow, error) {
	r := traces.Record{Tenant: tenant, PartitionUID: ev.PartitionID, TransactionID: ev.TransactionID,
		Group: ev.ConsumerGroup, EventType: ev.EventType, Names: ev.TraceNames, Data: ev.Data,
		TTLSeconds: int64(b.traceTTL.Seconds())}
	got, err := b.traces.Record(ctx, r)
	if err != nil {
		return httpd.TraceRow{}, mapErr(err)
	}
	return httpd.TraceRow{ID: got.ID, PartitionID: r.PartitionUID, TransactionID: r.TransactionID, Known: got.Known,
		Queue: got.Queue, Partition: got.Partition, ConsumerGroup: r.Group, EventType: r.EventType,
		TraceNames: r.Names, CreatedAt: got.Created(), ExpiresAt: got.ExpiresAt}, nil
}

// tracePage is what a trace read answers.
type tracePage struct {
	events []traces.Event
	more   bool
}

// TracesOf reads a message's events on a linearizable view.
func (b *Broker) TracesOf(ctx context.Context, tenant string, partitionID uint64, transactionID string, limit int) ([]httpd.TraceRow, bool, error) {
	return b.traceRead(ctx, func(v *raftlog.View) (any, error) {
		evs, truncated, err := traces.ByMessage(v, tenant, partitionID, transactionID, limit)
		return tracePage{evs, truncated}, err
	})
}

// TracesByName pages a name's events on a linearizable view.
func (b *Broker) TracesByName(ctx context.Context, tenant string, q httpd.TraceNameQuery) ([]httpd.TraceRow, bool, error) {
	return b.traceRead(ctx, func(v *raftlog.View) (any, error) {
		evs, more, err := traces.ByName(v, tenant, traces.NameQuery{Name: q.Name, From: q.From, To: q.To, Offset: q.Offset, Limit: q.Limit})
		return tracePage{evs, more}, err
	})
}

func (b *Broker) traceRead(ctx context.Context, fn func(v *raftlog.View) (any, error)) ([]httpd.TraceRow, bool, error) {
	v, err := b.traces.Read(ctx, fn)
	if err != nil {
		return nil, false, mapErr(err)
	}
	p := v.(tracePage)
	out := make([]httpd.TraceRow, len(p.events))
	for i, e := range p.events {
		out[i] = httpd.TraceRow{ID: e.ID, PartitionID: e.PartitionUID, TransactionID: e.TransactionID, Known: e.Known,
			Queue: e.Queue, Partition: e.Partition, ConsumerGroup: e.Group, EventType: e.EventType, TraceNames: e.Names,
			Data: e.Data, CreatedAt: e.Created, ExpiresAt: e.ExpiresAt}
	}
	return out, p.more, nil
}

// TraceNames pages the tenant's trace names on a linearizable view.
func (b *Broker) TraceNames(ctx context.Context, tenant string, q httpd.TraceNamesQuery) ([]httpd.TraceNameCount, bool, error) {
	type page struct {
		names     []traces.NameCount
		truncated bool
	}
	v, err := b.traces.Read(ctx, func(v *raftlog.View) (any, error) {
		names, truncated, err := traces.Names(v, tenant, q.Search, q.After, q.Limit)
		return page{names, truncated}, err
	})
	if err != nil {
		return nil, false, mapErr(err)
	}
	p := v.(page)
	out := make([]httpd.TraceNameCount, len(p.names))
	for i, n := range p.names {
		out[i] = httpd.TraceNameCount{Name: n.Name, Count: n.Count, LastSeenAt: n.Last}
	}
	return out, p.truncated, nil
}

package broker

import (
	"context"
	"fmt"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/streams"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

var _ httpd.Streamer = (*Broker)(nil)

// RegisterStream registers a stream query as one entry.
func (b *Broker) RegisterStream(ctx context.Context, tenant string, req httpd.StreamRegister) (httpd.StreamRegistered, error) {
	a, err := b.streams.Register(ctx, streams.RegisterOp{Tenant: tenant, Name: req.Name, Source: req.SourceQueue,
		Sink: req.SinkQueue, ConfigHash: req.ConfigHash, Reset: req.Reset})
	if err != nil {
		return httpd.StreamRegistered{}, mapErr(err)
	}
	return httpd.StreamRegistered{QueryID: streams.IDText(a.Query.ID), Name: a.Query.Name, ConfigHash: a.Query.ConfigHash,
		Fresh: a.Fresh, Reset: a.Reset, Mismatch: a.Mismatch}, nil
}

// StreamQueries lists the tenant's stream queries (or the one named) with
// their state and their consumer group's lag, from one linearizable view.
func (b *Broker) StreamQueries(ctx context.Context, tenant, name string) ([]httpd.StreamQuery, error) {
	got, err := b.streams.Read(ctx, func(v *raftlog.View) (any, error) {
		var qs []streams.Query
		if name != "" {
			q, ok, err := streams.Get(v, tenant, name)
			if err != nil || !ok {
				return []httpd.StreamQuery(nil), err
			}
			qs = []streams.Query{q}
		} else {
			var err error
			if qs, err = streams.List(v, tenant); err != nil {
				return nil, err
			}
		}
		out := make([]httpd.StreamQuery, len(qs))
		for i, q := range qs {
			lag, err := streamLag(v, tenant, &q)
			if err != nil {
				return nil, err
			}
			out[i] = streamQuery(&q, lag)
		}
		return out, nil
	})
	if err != nil {
		return nil, mapErr(err)
	}
	return got.([]httpd.StreamQuery), nil
}

func streamQuery(q *streams.Query, lag int64) httpd.StreamQuery {
	out := httpd.StreamQuery{QueryID: streams.IDText(q.ID), Name: q.Name, SourceQueue: q.Source, ConfigHash: q.ConfigHash,
		ConsumerGroup: q.Group, CreatedAt: kvstoreISO(q.Created), RegisteredAt: kvstoreISO(q.Registered),
		UpdatedAt: kvstoreISO(q.Updated), Resets: q.Resets, Cycles: q.Cycles,
		State: httpd.StreamState{Rows: q.Rows, Bytes: q.Bytes}, Lag: lag}
	if q.Sink != "" {
		out.SinkQueue = &q.Sink
	}
	return out
}

// streamLag is what the query's consumer group has still to settle of
// its source: every record the source holds while the group never
// popped it.
func streamLag(v *raftlog.View, tenant string, q *streams.Query) (int64, error) {
	gs, err := consume.Groups(v, tenant, q.Source, q.Group)
	if err != nil {
		return 0, err
	}
	if len(gs) > 0 {
		return gs[0].Lag, nil
	}
	var n int64
	err = queuelog.EachPartition(v, tenant, q.Source, 0, func(pi queuelog.PartitionInfo) (bool, error) {
		n += max(pi.LastOffset+1-pi.LogStart, 0)
		return true, nil
	})
	return n, err
}

// DeleteStream forgets a stream query and its state.
func (b *Broker) DeleteStream(ctx context.Context, tenant, name string) (bool, int64, error) {
	a, err := b.streams.Delete(ctx, tenant, name)
	if err != nil {
		return false, 0, mapErr(err)
	}
	return a.Found, a.Rows, nil
}

// StreamState reads a query's state rows of one partition, linearizably:
// a worker reads every cycle answered before, whichever node it asks.
func (b *Broker) StreamState(ctx context.Context, tenant string, req httpd.StreamStateRequest) ([]httpd.StreamRow, bool, error) {
	id, err := streams.ParseID(req.QueryID)
	if err != nil {
		return nil, false, nil
	}
	type answer struct {
		rows  []streams.Row
		found bool
		more  bool
	}
	got, err := b.streams.Read(ctx, func(v *raftlog.View) (any, error) {
		if _, ok, err := streams.ByID(v, tenant, id); err != nil || !ok {
			return answer{}, err
		}
		rows, more, err := streams.State(v, tenant, id, req.PartitionID,
			streams.StateFilter{Keys: req.Keys, Prefix: req.KeyPrefix, Ripe: req.Ripe, RipeAt: req.RipeAt}, httpd.MaxStreamStateRows)
		return answer{rows: rows, found: true, more: more}, err
	})
	if err != nil {
		return nil, false, mapErr(err)
	}
	a := got.(answer)
	if a.more {
		return nil, false, &httpd.Error{Status: 413, Code: httpd.CodePayloadTooLarge, Message: fmt.Sprintf(
			"partition %s of the query holds more than %d state rows: name the keys, or a key_prefix", req.PartitionID, httpd.MaxStreamStateRows)}
	}
	out := make([]httpd.StreamRow, len(a.rows))
	for i, r := range a.rows {
		out[i] = httpd.StreamRow{Key: r.Key, Value: r.Value}
	}
	return out, a.found, nil
}

// StreamCycle applies a cycle as one command: the ack fenced by its lease
// (consume's TxnOp, which releases the lease when asked), the state
// writes (streams' CycleOp), the pushes (strict: a duplicate
// transactionId rolls everything back). The first refused names why
// nothing applied.
func (b *Broker) StreamCycle(ctx context.Context, tenant string, req httpd.StreamCycle) (httpd.StreamCycleAnswer, error) {
	refused := func(reason, why string) (httpd.StreamCycleAnswer, error) {
		return httpd.StreamCycleAnswer{Reason: reason, Error: "the cycle was refused, nothing of it applied: " + why}, nil
	}
	id, err := streams.ParseID(req.QueryID)
	if err != nil {
		return refused(httpd.StreamQueryNotFound, err.Error())
	}
	var cmd raftlog.Command
	var kinds []string
	group := "" // the group a cycle's ack names becomes the query's
	if req.Ack != nil {
		group = req.ConsumerGroup
		item, err := ackItem(*req.Ack)
		if err != nil {
			return refused(httpd.StreamBadRequest, "ack: "+err.Error())
		}
		op := consume.TxnOp{Tenant: tenant, SkewMicros: b.cons.Skew.Microseconds(), Acks: []consume.AckItem{item}, Release: req.ReleaseLease}
		if req.AckCount > 0 {
			op.Counts = []int{req.AckCount}
		}
		cmd.Ops, kinds = append(cmd.Ops, op.Op()), append(kinds, "ack")
	}
	cy := streams.CycleOp{Tenant: tenant, ID: id, Partition: req.PartitionID, Group: group}
	for _, o := range req.StateOps {
		so := streams.StateOp{Kind: streams.StateUpsert, Key: o.Key, Value: o.Value}
		if o.Delete {
			so = streams.StateOp{Kind: streams.StateDelete, Key: o.Key}
		}
		cy.Ops = append(cy.Ops, so)
	}
	if err := streams.CheckCycle(&cy); err != nil {
		return refused(httpd.StreamBadRequest, err.Error())
	}
	cmd.Ops, kinds = append(cmd.Ops, cy.Op()), append(kinds, "state")
	if len(req.Pushes) > 0 {
		op := queuelog.PushOp{Tenant: tenant}
		sealFor := b.sealer(tenant)
		for _, it := range req.Pushes {
			payload, err := sealFor(it.Queue, it.Payload)
			if err != nil {
				return httpd.StreamCycleAnswer{}, err
			}
			it.Strict, it.Payload = true, payload
			op.Items = append(op.Items, it)
		}
		cmd.Ops, kinds = append(cmd.Ops, op.Op()), append(kinds, "push")
	}
	res, err := b.shard.Propose(ctx, cmd)
	if err != nil {
		return httpd.StreamCycleAnswer{}, mapErr(err)
	}
	if res.Aborted >= 0 {
		answer := res.Ops[res.Aborted]
		if why, ok := raftlog.Rejected(answer); ok {
			return refused(httpd.StreamBadRequest, why)
		}
		switch kinds[res.Aborted] {
		case "ack":
			_, why, err := consume.DecodeTxnRollback(answer)
			if err != nil {
				return httpd.StreamCycleAnswer{}, err
			}
			return refused(httpd.StreamLeaseNotCurrent, "ack: "+why)
		case "state":
			reason, why, err := streams.DecodeCycleRollback(answer)
			if err != nil {
				return httpd.StreamCycleAnswer{}, err
			}
			if reason == streams.RollbackQuery {
				return refused(httpd.StreamQueryNotFound, why)
			}
			return refused(httpd.StreamStateConflict, why)
		case "push":
			i, orig, err := queuelog.DecodePushRollback(answer)
			if err != nil {
				return httpd.StreamCycleAnswer{}, err
			}
			p := req.Pushes[i]
			return refused(httpd.StreamDuplicate, fmt.Sprintf("push_items[%d]: transactionId %q was pushed to %s/%s already, at offset %d",
				i, p.TransactionID, p.Queue, p.Partition, orig.Offset))
		}
	}
	a := httpd.StreamCycleAnswer{Success: true}
	for i, kind := range kinds {
		switch kind {
		case "ack":
			got, err := consume.DecodeAckAnswers(res.Ops[i])
			if err != nil || len(got) != 1 {
				return httpd.StreamCycleAnswer{}, fmt.Errorf("stream cycle: ack answers %d for 1: %v", len(got), err)
			}
			a.LeaseReleased = got[0].Released
		case "state":
			st, err := streams.DecodeCycle(res.Ops[i])
			if err != nil {
				return httpd.StreamCycleAnswer{}, err
			}
			a.State = httpd.StreamState{Rows: st.Rows, Bytes: st.Bytes}
		case "push":
			got, err := queuelog.DecodePushAnswers(res.Ops[i])
			if err != nil || len(got) != len(req.Pushes) {
				return httpd.StreamCycleAnswer{}, fmt.Errorf("stream cycle: push answers %d for %d: %v", len(got), len(req.Pushes), err)
			}
			for _, p := range got {
				a.Pushes = append(a.Pushes, httpd.PushResult{Duplicate: p.Duplicate, Offset: p.Offset, MessageID: p.MessageID})
			}
		}
	}
	return a, nil
}

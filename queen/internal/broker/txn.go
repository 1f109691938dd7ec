package broker

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/timers"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

var _ httpd.Transactor = (*Broker)(nil)

// Transaction applies a transaction as one entry: its acks and required
// leases (consume), its pushes (strict: a duplicate transactionId rolls
// everything back), its positions (consume), its KV ops and its timers,
// in that order, so the first to fail names the rollback in the
// contract's priority (acks, pushes, positions, kv, timers).
func (b *Broker) Transaction(ctx context.Context, tenant string, req httpd.TxnRequest) (httpd.TxnAnswer, error) {
	ans := httpd.TxnAnswer{TransactionID: uuid.Must(uuid.NewV7()).String()}
	rollback := func(reason, why string) (httpd.TxnAnswer, error) {
		ans.Reason, ans.Error = reason, rolledBackPrefix+why
		return ans, nil
	}
	var cmd raftlog.Command
	kinds := []string{}
	if len(req.Acks) > 0 || len(req.RequiredLeases) > 0 {
		op := consume.TxnOp{Tenant: tenant, SkewMicros: b.cons.Skew.Microseconds(), RequiredLeases: req.RequiredLeases}
		for _, a := range req.Acks {
			item, err := ackItem(a.Item)
			if err != nil {
				return rollback(httpd.TxnRejectedAck, fmt.Sprintf("operations[%d]: %v", a.OpIndex, err))
			}
			op.Acks = append(op.Acks, item)
		}
		cmd.Ops, kinds = append(cmd.Ops, op.Op()), append(kinds, "ack")
	}
	if len(req.Pushes) > 0 {
		op := queuelog.PushOp{Tenant: tenant}
		sealFor := b.sealer(tenant)
		for _, p := range req.Pushes {
			it := p.Item
			payload, err := sealFor(it.Queue, it.Payload)
			if err != nil {
				return httpd.TxnAnswer{}, err
			}
			it.Strict, it.Payload = true, payload
			op.Items = append(op.Items, it)
		}
		cmd.Ops, kinds = append(cmd.Ops, op.Op()), append(kinds, "push")
	}
	if len(req.Positions) > 0 {
		op := consume.PositionOp{Tenant: tenant, Items: make([]consume.Position, len(req.Positions))}
		for i, p := range req.Positions {
			op.Items[i] = consume.Position{Queue: p.Queue, Group: p.Group, Partition: p.Partition, Offset: consume.Forget,
				Metadata: p.Metadata, Mode: consume.ModeNew}
			if p.Offset != nil {
				op.Items[i].Offset = *p.Offset
			}
			if p.Mode == "all" {
				op.Items[i].Mode = consume.ModeAll
			}
		}
		cmd.Ops, kinds = append(cmd.Ops, op.Op()), append(kinds, "position")
	}
	if len(req.KV) > 0 {
		op, err := kvstore.Encode(tenant, req.KV)
		if err != nil {
			return httpd.TxnAnswer{}, mapErr(err)
		}
		cmd.Ops, kinds = append(cmd.Ops, op), append(kinds, "kv")
	}
	if len(req.Timers) > 0 {
		c, err := b.timerCall(tenant, req.Timers)
		if err != nil {
			return httpd.TxnAnswer{}, err
		}
		if err := timers.Check(c.Ops); err != nil {
			return rollback(httpd.TxnBadRequest, err.Error())
		}
		cmd.Ops, kinds = append(cmd.Ops, c.Op()), append(kinds, "timer")
	}
	res, err := b.shard.Propose(ctx, cmd)
	if err != nil {
		return httpd.TxnAnswer{}, mapErr(err)
	}
	if res.Aborted >= 0 {
		a, err := b.rolledBack(ans, req, kinds[res.Aborted], res.Ops[res.Aborted])
		a.Error = rolledBackPrefix + a.Error
		return a, err
	}
	return b.committed(ans, req, kinds, res)
}

// rolledBackPrefix starts the error of every rolled-back transaction: the
// official client raises it as is, and it must say nothing was applied.
const rolledBackPrefix = "the transaction was rolled back, nothing of it applied: "

// rolledBack names why the op of kind answered a rollback.
func (b *Broker) rolledBack(ans httpd.TxnAnswer, req httpd.TxnRequest, kind string, answer []byte) (httpd.TxnAnswer, error) {
	if why, ok := raftlog.Rejected(answer); ok {
		ans.Reason, ans.Error = httpd.TxnBadRequest, why
		return ans, nil
	}
	switch kind {
	case "ack":
		i, why, err := consume.DecodeTxnRollback(answer)
		if err != nil {
			return httpd.TxnAnswer{}, err
		}
		ans.Reason, ans.Error = httpd.TxnRejectedAck, why
		if i >= 0 {
			ans.Error = fmt.Sprintf("operations[%d]: %s", req.Acks[i].OpIndex, why)
		}
	case "push":
		i, orig, err := queuelog.DecodePushRollback(answer)
		if err != nil {
			return httpd.TxnAnswer{}, err
		}
		p := req.Pushes[i]
		ans.Reason = httpd.TxnDuplicate
		ans.Error = fmt.Sprintf("operations[%d]: transactionId %q was pushed to %s/%s already, at offset %d",
			p.OpIndex, p.Item.TransactionID, p.Item.Queue, p.Item.Partition, orig.Offset)
	case "position":
		i, reason, why, err := consume.DecodePositionRollback(answer)
		if err != nil {
			return httpd.TxnAnswer{}, err
		}
		ans.Reason, ans.Error = httpd.TxnBadRequest, fmt.Sprintf("positions[%d]: %s", req.Positions[i].OpIndex, why)
		if reason == consume.PositionNoPartition {
			ans.Reason = httpd.TxnQueueNotFound
		}
	case "kv":
		a, err := kvstore.DecodeAnswer(answer)
		if err != nil {
			return httpd.TxnAnswer{}, err
		}
		ans.Reason, ans.Error = httpd.TxnKVPrecondition, fmt.Sprintf("kv[%d]: %s", a.FailedIndex, a.KVReason)
		ans.KVFailure = &httpd.TxnKVFailure{FailedIndex: a.FailedIndex, KVReason: a.KVReason, Version: int64(a.Version), Value: a.Value}
	}
	return ans, nil
}

// committed renders the results: operations by index (a push operation's
// items in order), then the kv ops.
func (b *Broker) committed(ans httpd.TxnAnswer, req httpd.TxnRequest, kinds []string, res raftlog.Result) (httpd.TxnAnswer, error) {
	ans.Success = true
	ops := 0
	for i, kind := range kinds {
		switch kind {
		case "ack":
			got, err := consume.DecodeAckAnswers(res.Ops[i])
			if err != nil || len(got) != len(req.Acks) {
				return httpd.TxnAnswer{}, fmt.Errorf("transaction: ack answers %d for %d: %v", len(got), len(req.Acks), err)
			}
			for j, a := range req.Acks {
				ans.Results = append(ans.Results, httpd.TxnResult{Index: a.OpIndex, Type: "ack", TransactionID: a.Item.TransactionID, DLQ: got[j].DLQ})
				ops = max(ops, a.OpIndex+1)
			}
		case "push":
			got, err := queuelog.DecodePushAnswers(res.Ops[i])
			if err != nil || len(got) != len(req.Pushes) {
				return httpd.TxnAnswer{}, fmt.Errorf("transaction: push answers %d for %d: %v", len(got), len(req.Pushes), err)
			}
			for j, p := range req.Pushes {
				ans.Results = append(ans.Results, httpd.TxnResult{Index: p.OpIndex, Type: "push", TransactionID: p.Item.TransactionID,
					MessageID: got[j].MessageID, Queue: p.Item.Queue, Duplicate: got[j].Duplicate})
				ops = max(ops, p.OpIndex+1)
			}
		}
	}
	slices.SortStableFunc(ans.Results, func(x, y httpd.TxnResult) int { return x.Index - y.Index })
	for i, kind := range kinds {
		if kind != "kv" {
			continue
		}
		a, err := kvstore.DecodeAnswer(res.Ops[i])
		if err != nil {
			return httpd.TxnAnswer{}, err
		}
		for j, r := range a.Results {
			ans.Results = append(ans.Results, httpd.TxnResult{Index: ops + j, Type: "kv", OpIndex: j, KV: r})
		}
	}
	ops += len(req.KV)
	for i, kind := range kinds {
		if kind != "timer" {
			continue
		}
		got, err := timers.DecodeAnswers(res.Ops[i])
		if err != nil || len(got) != len(req.Timers) {
			return httpd.TxnAnswer{}, fmt.Errorf("transaction: timer answers %d for %d: %v", len(got), len(req.Timers), err)
		}
		for j, r := range timerResults(got) {
			ans.Results = append(ans.Results, httpd.TxnResult{Index: ops + j, Type: "timer", OpIndex: j, Timer: &r})
		}
	}
	ops += len(req.Timers)
	for j := range req.Positions {
		ans.Results = append(ans.Results, httpd.TxnResult{Index: ops + j, Type: "position", OpIndex: j})
	}
	return ans, nil
}

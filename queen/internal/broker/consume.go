package broker

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"

	"github.com/queen-mq/queen-go/contract"
)

var _ httpd.Consumer = (*Broker)(nil)

// Pop leases messages through the consuming family (API.md §2).
func (b *Broker) Pop(ctx context.Context, tenant string, req httpd.PopRequest) (httpd.PopAnswer, bool, error) {
	r := consume.PopRequest{Tenant: tenant, Queue: req.Queue, Partition: req.Partition, Group: req.ConsumerGroup,
		Batch: req.Batch, MaxPartitions: req.Partitions, Lease: time.Duration(req.LeaseSeconds) * time.Second,
		AutoAck: req.AutoAck, From: req.SubscriptionFrom, Conflate: req.Conflation}
	if req.SubscriptionMode == httpd.SubscriptionAll || req.ConsumerGroup == httpd.QueueModeGroup {
		r.Mode = consume.ModeAll
	}
	if req.Wait {
		r.Wait = req.Timeout
	}
	if req.Queue != "" {
		res, err := b.cons.Pop(ctx, r)
		if err != nil {
			return httpd.PopAnswer{}, false, mapErr(err)
		}
		return b.popAnswer(req.Queue, req.ConsumerGroup, res)
	}
	queues, err := b.discover(tenant, req.Namespace, req.Task)
	if err != nil {
		return httpd.PopAnswer{}, false, err
	}
	for _, q := range queues {
		r.Queue = q
		res, err := b.cons.Pop(ctx, r)
		if err != nil {
			return httpd.PopAnswer{}, false, mapErr(err)
		}
		if len(res.Parts) > 0 || q == queues[len(queues)-1] {
			return b.popAnswer(q, req.ConsumerGroup, res)
		}
	}
	return httpd.PopAnswer{}, false, nil
}

// discover lists the tenant's queues whose namespace and task options
// match (an empty one matches any), by name.
func (b *Broker) discover(tenant, namespace, task string) ([]string, error) {
	got, err := b.shard.LocalRead(func(v *raftlog.View) (any, error) { return queuelog.Queues(v, tenant) })
	if err != nil {
		return nil, mapErr(err)
	}
	var out []string
	for _, q := range got.([]queuelog.QueueInfo) {
		o := contract.ParseQueueOptions(q.Options)
		if (namespace == "" || o.Namespace == namespace) && (task == "" || o.Task == task) {
			out = append(out, q.Name)
		}
	}
	return out, nil
}

func (b *Broker) popAnswer(queue, group string, res consume.PopResult) (httpd.PopAnswer, bool, error) {
	if len(res.Parts) == 0 { // the flags, for a pop that asked for conflation
		return httpd.PopAnswer{Queue: queue, ConsumerGroup: group, Conflation: res.Conflation, ConflationConflict: res.Conflict}, false, nil
	}
	a := httpd.PopAnswer{Queue: queue, Partition: res.Parts[0].Partition, PartitionID: strconv.FormatUint(res.Parts[0].UID, 10),
		LeaseID: res.LeaseID, ConsumerGroup: group, PartitionsClaimed: len(res.Parts),
		Conflation: res.Conflation, ConflationConflict: res.Conflict}
	for _, p := range res.Parts {
		pid := strconv.FormatUint(p.UID, 10)
		for _, m := range p.Messages {
			var trace string
			if m.TraceID != ([16]byte{}) {
				trace = uuid.UUID(m.TraceID).String()
			}
			a.Messages = append(a.Messages, httpd.PopMessage{ID: uuid.UUID(m.MessageID).String(), TransactionID: m.TransactionID, TraceID: trace,
				ProducerSub: m.ProducerSub, Data: b.open(m.Payload), CreatedAt: m.Ts, PartitionID: pid, Queue: queue, Partition: p.Partition,
				LeaseID: res.LeaseID, ConsumerGroup: group, DeliveryAttempt: m.Attempt, Offset: m.Offset})
		}
	}
	return a, true, nil
}

// ackStatus maps the contract's ack statuses; unknown ones read as
// completed (httpd passes them on as sent).
var ackStatus = map[string]byte{httpd.AckFailed: consume.StatusFailed, httpd.AckRetry: consume.StatusRetry, httpd.AckDLQ: consume.StatusDLQ}

// ackItem converts an API ack item; a partitionId beyond uint64 names no
// partition.
func ackItem(it httpd.AckItem) (consume.AckItem, error) {
	uid, err := strconv.ParseUint(it.PartitionID, 10, 64)
	if err != nil {
		return consume.AckItem{}, errors.New("partitionId " + it.PartitionID + " names no partition")
	}
	return consume.AckItem{TransactionID: it.TransactionID, PartitionUID: uid, Group: it.ConsumerGroup,
		LeaseID: it.LeaseID, Status: ackStatus[it.Status], Error: it.Error}, nil
}

// Ack settles messages, each item on its own.
func (b *Broker) Ack(ctx context.Context, tenant string, items []httpd.AckItem) ([]httpd.AckResult, error) {
	out := make([]httpd.AckResult, len(items))
	var op []consume.AckItem
	var at []int // op item i answers items[at[i]]
	for i, it := range items {
		out[i] = httpd.AckResult{Index: i, TransactionID: it.TransactionID}
		a, err := ackItem(it)
		if err != nil {
			out[i].Error = err.Error()
			continue
		}
		op = append(op, a)
		at = append(at, i)
	}
	if len(op) == 0 {
		return out, nil
	}
	answers, err := b.cons.Ack(ctx, tenant, op)
	if err != nil {
		return nil, mapErr(err)
	}
	for j, a := range answers {
		r := &out[at[j]]
		r.Success, r.Error, r.LeaseReleased, r.DLQ, r.Noop = a.OK, a.Error, a.Released, a.DLQ, a.Noop
	}
	return out, nil
}

// ExtendLease moves a live lease's end to seconds from now.
func (b *Broker) ExtendLease(ctx context.Context, tenant, leaseID string, seconds int) (httpd.ExtendAnswer, error) {
	if seconds < 0 {
		return httpd.ExtendAnswer{}, &httpd.Error{Status: http.StatusBadRequest, Code: "bad_request", Message: "seconds must be at least 1"}
	}
	a, err := b.cons.Extend(ctx, tenant, leaseID, time.Duration(seconds)*time.Second)
	if err != nil {
		return httpd.ExtendAnswer{}, mapErr(err)
	}
	return httpd.ExtendAnswer{Success: a.Renewed > 0, LeaseID: leaseID, Renewed: a.Renewed, ExpiresAt: a.End}, nil
}

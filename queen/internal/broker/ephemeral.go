package broker

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/queen/internal/ephemeral"
)

var _ httpd.Ephemeral = (*Broker)(nil)

// The ephemeral routes are served from this node's own store (package
// ephemeral): no call touches the shard, so they answer on a follower,
// and while the cluster has no leader, as on the leader.

// EphemeralPush pushes to this node's store.
func (b *Broker) EphemeralPush(ctx context.Context, tenant string, req httpd.EphemeralPush) (int, error) {
	a, err := b.eph.Push(ephemeral.PushRequest{Tenant: tenant, Queue: req.Queue, Partition: req.Partition, Payloads: req.Payloads})
	return a.Pushed, ephemeralErr(err)
}

// EphemeralPop pops from this node's store, long-polling when asked.
func (b *Broker) EphemeralPop(ctx context.Context, tenant string, req httpd.EphemeralPop) ([]httpd.EphemeralMessage, error) {
	r := ephemeral.PopRequest{Tenant: tenant, Queue: req.Queue, Partition: req.Partition, Group: req.Group,
		Batch: req.Batch, AutoAck: req.AutoAck}
	if req.Wait {
		r.Wait = req.Timeout
	}
	got := b.eph.Pop(ctx, r)
	out := make([]httpd.EphemeralMessage, len(got))
	for i, m := range got {
		out[i] = httpd.EphemeralMessage{ID: m.ID, Partition: m.Partition, Payload: m.Payload, Attempts: m.Attempts}
	}
	return out, nil
}

var ackStatuses = map[string]ephemeral.Status{httpd.AckCompleted: ephemeral.Completed, httpd.AckFailed: ephemeral.Failed,
	httpd.AckRetry: ephemeral.Retry}

// EphemeralAck settles deliveries of this node's store.
func (b *Broker) EphemeralAck(ctx context.Context, tenant string, req httpd.EphemeralAck) ([]string, error) {
	r := ephemeral.AckRequest{Tenant: tenant, Queue: req.Queue, Group: req.Group, Acks: make([]ephemeral.Ack, len(req.Acks))}
	for i, a := range req.Acks {
		r.Acks[i] = ephemeral.Ack{ID: a.ID, Status: ackStatuses[a.Status]}
	}
	got := b.eph.Ack(r)
	out := make([]string, len(got))
	for i, o := range got {
		out[i] = string(o)
	}
	return out, nil
}

// EphemeralConfigure declares a queue of this node's store.
func (b *Broker) EphemeralConfigure(ctx context.Context, tenant string, req httpd.EphemeralConfigure) (httpd.EphemeralOptions, error) {
	seconds := func(n *int64) *time.Duration {
		if n == nil {
			return nil
		}
		d := time.Duration(*n) * time.Second
		return &d
	}
	p := ephemeral.Patch{MaxBytes: req.MaxBytes, MaxLength: req.MaxLength, TTL: seconds(req.TTLSeconds), Lease: seconds(req.LeaseSeconds)}
	if req.Policy != nil {
		pol := ephemeral.Policy(*req.Policy)
		p.Policy = &pol
	}
	if req.RetryLimit != nil {
		n := int(*req.RetryLimit)
		p.RetryLimit = &n
	}
	if w := req.WindowBuffer; w != nil {
		p.WindowBuffer = &ephemeral.WindowBuffer{Wait: time.Duration(w.Ms) * time.Millisecond, Count: int(w.Count)}
	}
	o, err := b.eph.Configure(tenant, req.Queue, p)
	if err != nil {
		return httpd.EphemeralOptions{}, ephemeralErr(err)
	}
	return ephemeralOptions(o), nil
}

// EphemeralReset empties a queue of this node's store.
func (b *Broker) EphemeralReset(ctx context.Context, tenant, queue string) (int, error) {
	return b.eph.Reset(tenant, queue), nil
}

// EphemeralDelete forgets a queue of this node's store.
func (b *Broker) EphemeralDelete(ctx context.Context, tenant, queue string) (bool, error) {
	return b.eph.Delete(tenant, queue), nil
}

// EphemeralQueues lists the tenant's queues of this node's store.
func (b *Broker) EphemeralQueues(ctx context.Context, tenant string) ([]httpd.EphemeralQueue, error) {
	got := b.eph.Queues(tenant)
	out := make([]httpd.EphemeralQueue, len(got))
	for i, q := range got {
		out[i] = ephemeralQueue(q)
	}
	return out, nil
}

// EphemeralDepth describes a queue of this node's store.
func (b *Broker) EphemeralDepth(ctx context.Context, tenant, queue string) (httpd.EphemeralDepth, bool, error) {
	d, ok := b.eph.Depth(tenant, queue)
	if !ok {
		return httpd.EphemeralDepth{}, false, nil
	}
	out := httpd.EphemeralDepth{EphemeralQueue: ephemeralQueue(d.QueueInfo), Options: ephemeralOptions(d.Options),
		Groups: ephemeralGroups(d.Groups)}
	for _, p := range d.Partitions {
		out.Partitions = append(out.Partitions, httpd.EphemeralPartitionDepth{Partition: p.Partition, Messages: p.Messages,
			Bytes: p.Bytes, Groups: ephemeralGroups(p.Groups)})
	}
	return out, true, nil
}

func ephemeralQueue(q ephemeral.QueueInfo) httpd.EphemeralQueue {
	return httpd.EphemeralQueue{Queue: q.Queue, Declared: q.Declared, Messages: q.Messages, Bytes: q.Bytes,
		Inflight: q.Inflight, PartitionCount: q.PartitionCount, GroupCount: q.GroupCount}
}

func ephemeralGroups(gs []ephemeral.GroupDepth) []httpd.EphemeralGroupDepth {
	out := make([]httpd.EphemeralGroupDepth, len(gs))
	for i, g := range gs {
		out[i] = httpd.EphemeralGroupDepth{Group: g.Group, Pending: g.Pending, Inflight: g.Inflight}
	}
	return out
}

func ephemeralOptions(o ephemeral.QueueOptions) httpd.EphemeralOptions {
	return httpd.EphemeralOptions{MaxBytes: o.MaxBytes, MaxLength: o.MaxLength, Policy: string(o.Policy),
		TTLSeconds: int64(o.TTL / time.Second), LeaseSeconds: int64(o.Lease / time.Second), RetryLimit: int64(o.RetryLimit),
		WindowBuffer: httpd.EphemeralWindow{Ms: o.WindowBuffer.Wait.Milliseconds(), Count: int64(o.WindowBuffer.Count)}}
}

// ephemeralErr maps the store's refusals to the HTTP contract's: a push
// that does not fit now 429 overloaded, one that never can 413
// payload_too_large, an option out of range 400.
func ephemeralErr(err error) error {
	var full *ephemeral.FullError
	var large *ephemeral.TooLargeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &full):
		return &httpd.Error{Status: http.StatusTooManyRequests, Code: httpd.CodeOverloaded, Message: full.Error()}
	case errors.As(err, &large):
		return &httpd.Error{Status: http.StatusRequestEntityTooLarge, Code: httpd.CodePayloadTooLarge, Message: large.Error()}
	case errors.Is(err, ephemeral.ErrBadOption):
		return &httpd.Error{Status: http.StatusBadRequest, Code: httpd.CodeBadRequest, Message: err.Error()}
	}
	return err
}

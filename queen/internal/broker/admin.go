package broker

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/streams"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

var _ httpd.Admin = (*Broker)(nil)

// ConsumerGroups lists the tenant's groups, by name.
func (b *Broker) ConsumerGroups(ctx context.Context, tenant string) ([]httpd.GroupInfo, error) {
	return b.groups(ctx, tenant, "")
}

// groups reads the tenant's groups (only group's when it is not ""), by
// name, each with the queues it reads.
func (b *Broker) groups(ctx context.Context, tenant, group string) ([]httpd.GroupInfo, error) {
	got, err := b.cons.Groups(ctx, tenant, group)
	if err != nil {
		return nil, mapErr(err)
	}
	byName := map[string]int{}
	var out []httpd.GroupInfo
	for _, g := range got {
		i, ok := byName[g.Group]
		if !ok {
			i = len(out)
			byName[g.Group] = i
			out = append(out, httpd.GroupInfo{Name: g.Group})
		}
		out[i].Queues = append(out[i].Queues, groupQueue(g))
	}
	slices.SortFunc(out, func(a, b httpd.GroupInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func groupQueue(g consume.GroupInfo) httpd.GroupQueue {
	q := httpd.GroupQueue{Queue: g.Queue, SubscribedAt: g.Subscribed, SubscriptionMode: "new", Lag: g.Lag}
	if g.Mode == consume.ModeAll {
		q.SubscriptionMode = "all"
	}
	for _, p := range g.Partitions {
		q.Partitions = append(q.Partitions, httpd.GroupPartition{Partition: p.Partition, Cursor: p.Cursor,
			HighWatermark: p.HighWatermark, LeaseID: p.LeaseID, LeaseExpiresAt: p.LeaseEnd})
	}
	return q
}

// ConsumerGroup describes one group.
func (b *Broker) ConsumerGroup(ctx context.Context, tenant, group string) (httpd.GroupInfo, bool, error) {
	got, err := b.groups(ctx, tenant, group)
	if err != nil || len(got) == 0 {
		return httpd.GroupInfo{}, false, err
	}
	return got[0], true, nil
}

// DeleteConsumerGroup forgets a group on one queue or every queue, its
// subscriptions too unless keepSubscription.
func (b *Broker) DeleteConsumerGroup(ctx context.Context, tenant, group, queue string, keepSubscription bool) (int, error) {
	n, err := b.cons.DeleteGroup(ctx, consume.DeleteOp{Tenant: tenant, Queue: queue, Group: group, KeepSubscription: keepSubscription})
	return n, mapErr(err)
}

// DeleteQueue deletes a queue with its partitions, records, dedup index,
// consumer groups' state, dead letters and the state of the stream
// queries reading it, in one entry.
func (b *Broker) DeleteQueue(ctx context.Context, tenant, queue string) (httpd.QueueDeleted, bool, error) {
	drop := streams.DropSourceOp{Tenant: tenant, Queue: queue}
	q, d, err := b.cons.DeleteQueue(ctx, tenant, queue, drop.Op())
	if err != nil {
		return httpd.QueueDeleted{}, false, mapErr(err)
	}
	return httpd.QueueDeleted{Partitions: int64(q.Partitions), Messages: q.Records, ConsumerGroups: d.Groups, DeadLetters: d.DeadLetters}, q.Found, nil
}

// SetSubscription moves a group's subscription time on every queue it reads.
func (b *Broker) SetSubscription(ctx context.Context, tenant, group string, from int64) (int, error) {
	n, err := b.cons.SetSubscription(ctx, consume.SubscriptionOp{Tenant: tenant, Group: group, From: from})
	return n, mapErr(err)
}

// SeekConsumerGroup moves a group's cursors on a queue.
func (b *Broker) SeekConsumerGroup(ctx context.Context, tenant string, req httpd.SeekRequest) (int, error) {
	n, err := b.cons.Seek(ctx, consume.SeekOp{Tenant: tenant, Queue: req.Queue, Group: req.Group, Partition: req.Partition,
		ToEnd: req.ToEnd, To: req.To})
	return n, mapErr(err)
}

// DLQ lists a page of the dead letters q selects, and how many it selects:
// a walk over the letters of the queue (or tenant), never the records.
func (b *Broker) DLQ(ctx context.Context, tenant string, q httpd.DLQQuery) ([]httpd.DeadLetter, int, error) {
	got, err := b.cons.Letters(ctx, tenant, q.Queue, q.Group, 0)
	if err != nil {
		return nil, 0, mapErr(err)
	}
	var out []httpd.DeadLetter
	total := 0
	for _, l := range got {
		if q.Partition != "" && l.Partition != q.Partition || q.From > 0 && l.Filed < q.From || q.To > 0 && l.Filed >= q.To {
			continue
		}
		total++
		if total <= q.Offset || len(out) == q.Limit {
			continue
		}
		out = append(out, httpd.DeadLetter{ID: l.ID, Queue: l.Queue, ConsumerGroup: l.Group, Partition: l.Partition, Offset: l.Offset,
			MessageID: l.MessageID, TransactionID: l.TransactionID, Data: b.open(l.Payload), CreatedAt: l.Created, FailedAt: l.Filed,
			Attempts: l.Attempts, Error: l.Error})
	}
	return out, total, nil
}

// ReplayDLQ pushes a dead letter's copy back and takes it out of the DLQ.
func (b *Broker) ReplayDLQ(ctx context.Context, tenant, id, queue, partition string) (httpd.ReplayAnswer, error) {
	sealFor := b.sealer(tenant)
	prepare := func(queue string, stored []byte) ([]byte, error) { return sealFor(queue, b.open(stored)) }
	l, dup, err := b.cons.Replay(ctx, tenant, id, queue, partition, uuid.Must(uuid.NewV7()), prepare)
	if errors.Is(err, consume.ErrGone) {
		return httpd.ReplayAnswer{}, httpd.ErrGone
	}
	if err != nil {
		return httpd.ReplayAnswer{}, mapErr(err)
	}
	a := httpd.ReplayAnswer{ID: id, Verdict: "moved", Queue: queue, Partition: partition}
	if a.Queue == "" {
		a.Queue = l.Queue
	}
	if a.Partition == "" {
		a.Partition = l.Partition
	}
	if dup {
		a.Verdict = "duplicate"
	}
	return a, nil
}

// PurgeDLQ deletes dead letters.
func (b *Broker) PurgeDLQ(ctx context.Context, tenant, queue, group string) (int, error) {
	n, err := b.cons.Purge(ctx, consume.PurgeOp{Tenant: tenant, Queue: queue, Group: group})
	return n, mapErr(err)
}

// Messages lists records of the matching queues, by queue, partition (in
// creation order) and offset, with their status for queue mode, read
// from this node's applied state.
func (b *Broker) Messages(ctx context.Context, tenant string, q httpd.MessagesQuery) ([]httpd.MessageInfo, error) {
	queues := []string{q.Queue}
	if q.Queue == "" {
		var err error
		if queues, err = b.discover(tenant, q.Namespace, q.Task); err != nil {
			return nil, err
		}
	}
	got, err := b.shard.LocalRead(func(v *raftlog.View) (any, error) {
		m := messageLister{v: v, tenant: tenant, q: q, skip: q.Offset, open: b.open}
		for _, queue := range queues {
			if err := m.queue(queue); err != nil || len(m.out) == q.Limit {
				return m.out, err
			}
		}
		return m.out, nil
	})
	if err != nil {
		return nil, mapErr(err)
	}
	return got.([]httpd.MessageInfo), nil
}

// messageLister pages through records for Messages.
type messageLister struct {
	v      *raftlog.View
	tenant string
	q      httpd.MessagesQuery
	skip   int
	open   func([]byte) []byte
	out    []httpd.MessageInfo
}

func (m *messageLister) queue(queue string) error {
	return queuelog.EachPartition(m.v, m.tenant, queue, 0, func(p queuelog.PartitionInfo) (bool, error) {
		if m.q.Partition != "" && p.Name != m.q.Partition {
			return true, nil
		}
		err := m.partition(queue, p)
		return len(m.out) < m.q.Limit, err
	})
}

func (m *messageLister) partition(queue string, p queuelog.PartitionInfo) error {
	status, err := consume.StatusOf(m.v, m.tenant, queue, httpd.QueueModeGroup, p.Name)
	if err != nil {
		return err
	}
	deleted, err := consume.Deleted(m.v, m.tenant, queue, p.Name)
	if err != nil {
		return err
	}
	from := p.LogStart
	if m.q.From > 0 {
		at, err := queuelog.OffsetForTime(m.v, m.tenant, queue, p.Name, m.q.From)
		if err != nil {
			return err
		}
		if !at.Found {
			return nil
		}
		from = at.Offset
	}
	pid := strconv.FormatUint(p.UID, 10)
	for from <= p.LastOffset {
		batch, err := queuelog.ReadRecords(m.v, m.tenant, queue, p.Name, from, queuelog.ReadLimits{MaxRecords: 256})
		if err != nil {
			return err
		}
		for _, r := range batch.Records {
			if m.q.To > 0 && r.Ts >= m.q.To {
				return nil
			}
			if gone, err := deleted(r.Offset); err != nil || gone {
				if err != nil {
					return err
				}
				continue // deleted for every consumer
			}
			st, err := status(r.Offset)
			if err != nil {
				return err
			}
			if m.q.Status != "" && st != m.q.Status {
				continue
			}
			if m.skip > 0 {
				m.skip--
				continue
			}
			m.out = append(m.out, httpd.MessageInfo{ID: r.MessageID, TransactionID: r.TransactionID, Queue: queue,
				Partition: p.Name, PartitionID: pid, Offset: r.Offset, Data: m.open(r.Payload), CreatedAt: r.Ts, Status: st})
			if len(m.out) == m.q.Limit {
				return nil
			}
		}
		if len(batch.Records) == 0 {
			return nil
		}
		from = batch.Records[len(batch.Records)-1].Offset + 1
	}
	return nil
}

package broker

import (
	"context"
	"errors"
	"strconv"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// located is a message a partition id and transaction id name.
type located struct {
	queue, partition string
	uid              uint64
	rec              queuelog.Record
}

// locate finds the message: its partition by id (the ack path's index,
// else a walk over the tenant's partitions, never their records), then
// its offset by the dedup index. ok is false when either is unknown.
func locate(v *raftlog.View, tenant, pid, txid string) (located, bool, error) {
	uid, err := strconv.ParseUint(pid, 10, 64)
	if err != nil {
		return located{}, false, nil
	}
	l := located{uid: uid}
	var ok bool
	if l.queue, l.partition, ok, err = consume.PartitionOf(v, tenant, uid); err != nil {
		return located{}, false, err
	}
	if !ok {
		queues, err := queuelog.Queues(v, tenant)
		if err != nil {
			return located{}, false, err
		}
		for _, q := range queues {
			err := queuelog.EachPartition(v, tenant, q.Name, 0, func(p queuelog.PartitionInfo) (bool, error) {
				if p.UID == uid {
					l.queue, l.partition, ok = q.Name, p.Name, true
				}
				return !ok, nil
			})
			if err != nil || ok {
				if err != nil {
					return located{}, false, err
				}
				break
			}
		}
		if !ok {
			return located{}, false, nil
		}
	}
	off, ok, err := queuelog.TransactionOffset(v, uid, txid)
	if err != nil || !ok {
		return located{}, false, err
	}
	b, err := queuelog.ReadRecords(v, tenant, l.queue, l.partition, off, queuelog.ReadLimits{MaxRecords: 1})
	if errors.Is(err, queuelog.ErrOffsetOutOfRange) || errors.Is(err, queuelog.ErrUnknownPartition) {
		return located{}, false, nil
	}
	if err != nil {
		return located{}, false, err
	}
	if len(b.Records) == 0 || b.Records[0].Offset != off || b.Records[0].TransactionID != txid {
		return located{}, false, nil
	}
	deleted, err := consume.Deleted(v, tenant, l.queue, l.partition)
	if err != nil {
		return located{}, false, err
	}
	if gone, err := deleted(off); err != nil || gone {
		return located{}, false, err
	}
	l.rec = b.Records[0]
	return l, true, nil
}

// DeleteMessage deletes a message for every consumer group.
func (b *Broker) DeleteMessage(ctx context.Context, tenant, pid, txid string) (httpd.MessageInfo, bool, error) {
	got, err := b.shard.Read(ctx, func(v *raftlog.View) (any, error) {
		l, ok, err := locate(v, tenant, pid, txid)
		if err != nil || !ok {
			return nil, err
		}
		return l, nil
	})
	if err != nil {
		return httpd.MessageInfo{}, false, mapErr(err)
	}
	l, ok := got.(located)
	if !ok {
		return httpd.MessageInfo{}, false, nil
	}
	done, err := b.cons.DeleteMessage(ctx, consume.DeleteMessageOp{Tenant: tenant, Queue: l.queue, Partition: l.partition, UID: l.uid,
		Offset: l.rec.Offset, TransactionID: txid})
	if err != nil || !done {
		return httpd.MessageInfo{}, false, mapErr(err)
	}
	return httpd.MessageInfo{TransactionID: txid, Queue: l.queue, Partition: l.partition, PartitionID: pid, Offset: l.rec.Offset}, true, nil
}

// Message describes one message with its status for each group and its
// dead letters.
func (b *Broker) Message(ctx context.Context, tenant, pid, txid string) (httpd.MessageDetail, bool, error) {
	type found struct {
		d  httpd.MessageDetail
		ok bool
	}
	got, err := b.shard.LocalRead(func(v *raftlog.View) (any, error) {
		l, ok, err := locate(v, tenant, pid, txid)
		if err != nil || !ok {
			return found{}, err
		}
		status := func(group string) (string, error) {
			st, err := consume.StatusOf(v, tenant, l.queue, group, l.partition)
			if err != nil {
				return "", err
			}
			return st(l.rec.Offset)
		}
		qm, err := status(httpd.QueueModeGroup)
		if err != nil {
			return nil, err
		}
		d := httpd.MessageDetail{MessageInfo: httpd.MessageInfo{ID: l.rec.MessageID, TransactionID: l.rec.TransactionID, Queue: l.queue,
			Partition: l.partition, PartitionID: pid, Offset: l.rec.Offset, Data: b.open(l.rec.Payload), CreatedAt: l.rec.Ts, Status: qm}}
		groups, err := consume.GroupNames(v, tenant, l.queue)
		if err != nil {
			return nil, err
		}
		for _, g := range groups {
			st, err := status(g)
			if err != nil {
				return nil, err
			}
			d.Groups = append(d.Groups, httpd.GroupStatus{Group: g, Status: st})
		}
		letters, err := consume.LettersOf(v, tenant, l.queue, l.partition, l.rec.Offset)
		if err != nil {
			return nil, err
		}
		for _, x := range letters {
			d.DeadLetters = append(d.DeadLetters, x.ID)
		}
		return found{d, true}, nil
	})
	if err != nil {
		return httpd.MessageDetail{}, false, mapErr(err)
	}
	f := got.(found)
	return f.d, f.ok, nil
}

// RetryMessage replays each dead letter of a message.
func (b *Broker) RetryMessage(ctx context.Context, tenant, pid, txid string) ([]httpd.ReplayAnswer, bool, error) {
	type found struct {
		ids []string
		ok  bool
	}
	got, err := b.shard.Read(ctx, func(v *raftlog.View) (any, error) {
		l, ok, err := locate(v, tenant, pid, txid)
		if err != nil || !ok {
			return found{}, err
		}
		letters, err := consume.LettersOf(v, tenant, l.queue, l.partition, l.rec.Offset)
		if err != nil {
			return nil, err
		}
		f := found{ok: true}
		for _, x := range letters {
			f.ids = append(f.ids, x.ID)
		}
		return f, nil
	})
	if err != nil {
		return nil, false, mapErr(err)
	}
	f := got.(found)
	var out []httpd.ReplayAnswer
	for _, id := range f.ids {
		a, err := b.ReplayDLQ(ctx, tenant, id, "", "")
		if errors.Is(err, httpd.ErrGone) {
			continue // replayed by another call since the read
		}
		if err != nil {
			return nil, true, err
		}
		out = append(out, a)
	}
	return out, f.ok, nil
}

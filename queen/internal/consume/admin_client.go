package consume

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// countAnswer is the answer of an op that answers how many it changed,
// and count reads it.
func countAnswer(n int) []byte { return binary.AppendUvarint(nil, uint64(n)) }

func count(b []byte) (int, error) {
	n, _ := binary.Uvarint(b)
	return int(n), nil
}

// ErrGone is returned by Replay for a dead letter that is not (or no
// longer) in the DLQ.
var ErrGone = errors.New("consume: dead letter gone")

// Seek moves a group's cursors (see SeekOp) and answers how many
// partitions moved.
func (c *Consumer) Seek(ctx context.Context, op SeekOp) (int, error) {
	return family.Propose(ctx, c.Shard, nil, op.Op(), count)
}

// DeleteGroup forgets a group (see DeleteOp) and answers on how many
// queues it was subscribed.
func (c *Consumer) DeleteGroup(ctx context.Context, op DeleteOp) (int, error) {
	return family.Propose(ctx, c.Shard, nil, op.Op(), count)
}

// Purge deletes dead letters (see PurgeOp) and answers how many.
func (c *Consumer) Purge(ctx context.Context, op PurgeOp) (int, error) {
	return family.Propose(ctx, c.Shard, nil, op.Op(), count)
}

// Replay pushes a copy of dead letter id to queue/partition (its own when
// ""), with transaction id "dlq:<id>", and takes it out of the DLQ, as one
// entry. prepare (nil: none) turns the stored payload into the one to push
// to queue (opening and sealing again for encrypted queues). duplicate is
// true when that transaction id was pushed already (the copy is not pushed
// twice). A letter not in the DLQ is ErrGone.
func (c *Consumer) Replay(ctx context.Context, tenant, id, queue, partition string, msgID [16]byte,
	prepare func(queue string, stored []byte) ([]byte, error)) (l DeadLetter, duplicate bool, err error) {
	got, err := c.Shard.Read(ctx, func(v *raftlog.View) (any, error) {
		l, ok, err := Letter(v, tenant, id)
		if err == nil && !ok {
			err = ErrGone
		}
		return l, err
	})
	if err != nil {
		return DeadLetter{}, false, err
	}
	l = got.(DeadLetter)
	if queue == "" {
		queue = l.Queue
	}
	if partition == "" {
		partition = l.Partition
	}
	payload := l.Payload
	if prepare != nil {
		if payload, err = prepare(queue, payload); err != nil {
			return DeadLetter{}, false, err
		}
	}
	if len(payload) == 0 {
		payload = []byte("null")
	}
	take := ReplayOp{Tenant: tenant, ID: id}
	push := queuelog.PushOp{Tenant: tenant, Items: []queuelog.PushItem{{Queue: queue, Partition: partition,
		TransactionID: "dlq:" + id, MessageID: msgID, Dedup: true, Payload: payload}}}
	res, err := c.Shard.Propose(ctx, raftlog.Command{Ops: []raftlog.Op{take.Op(), push.Op()}})
	if err != nil {
		return DeadLetter{}, false, err
	}
	switch {
	case res.Aborted == 0:
		return DeadLetter{}, false, ErrGone
	case res.Aborted > 0:
		why, _ := raftlog.Rejected(res.Ops[res.Aborted])
		return DeadLetter{}, false, fmt.Errorf("%w: %s", raftlog.ErrRejected, why)
	}
	a, err := queuelog.DecodePushAnswers(res.Ops[1])
	if err != nil || len(a) != 1 {
		return DeadLetter{}, false, fmt.Errorf("consume: replay push answer: %v", err)
	}
	return l, a[0].Duplicate, nil
}

// Groups reads a tenant's consumer groups (of one group when group is
// not ""), linearizably.
func (c *Consumer) Groups(ctx context.Context, tenant, group string) ([]GroupInfo, error) {
	got, err := c.Shard.Read(ctx, func(v *raftlog.View) (any, error) { return Groups(v, tenant, "", group) })
	if err != nil {
		return nil, err
	}
	return got.([]GroupInfo), nil
}

// Letters reads a queue's dead letters (of one group, or all when ""), up
// to limit, linearizably.
func (c *Consumer) Letters(ctx context.Context, tenant, queue, group string, limit int) ([]DeadLetter, error) {
	got, err := c.Shard.Read(ctx, func(v *raftlog.View) (any, error) { return DeadLetters(v, tenant, queue, group, limit) })
	if err != nil {
		return nil, err
	}
	return got.([]DeadLetter), nil
}

package consume

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

const kindDropQueue byte = 11

// DropQueueOp forgets everything the consuming family holds about a
// queue: every group's subscription, cursors, leases and position
// metadata on it, its dead letters, and the partition ids its acks name.
// It goes first in the command of DELETE /api/v1/resources/queues/:queue,
// before raftlog's DeleteQueueOp deletes the queue's records, so it still
// reads the queue's partitions.
type DropQueueOp struct {
	Tenant, Queue string
}

// Op encodes o as an op of a command.
func (o *DropQueueOp) Op() raftlog.Op {
	b := wire.AppendString(wire.AppendString([]byte{opVersion, kindDropQueue}, o.Tenant), o.Queue)
	return raftlog.Op{Kind: OpConsume, Data: b}
}

// DropQueueAnswer is what a DropQueueOp deleted.
type DropQueueAnswer struct {
	Groups      int // consumer groups subscribed to the queue
	DeadLetters int
}

// Apply walks the queue's group states (for the leases they name) and
// dead letters (for their ids), then deletes each of the family's key
// ranges of the queue.
func (op *DropQueueOp) Apply(s *state) ([]byte, error) {
	var a DropQueueAnswer
	if err := queuelog.EachPartition(s.v, op.Tenant, op.Queue, 0, func(p queuelog.PartitionInfo) (bool, error) {
		s.tx.Delete(uidKey(p.UID))
		return true, nil
	}); err != nil {
		return nil, err
	}
	gp := name(name([]byte{prefixGP}, op.Tenant), op.Queue)
	var leases []string
	err := family.Rows(s.v.Scan, gp, wire.PrefixEnd(gp), family.Value(decodeGP), func(g gpState) bool {
		if g.LeaseID != "" {
			leases = append(leases, g.LeaseID)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	for _, id := range leases { // a lease holds partitions of one queue
		s.tx.Delete(leaseKey(id))
	}
	letters := letterPrefix(op.Tenant, op.Queue)
	err = family.Rows(s.v.Scan, letters, wire.PrefixEnd(letters), family.Value(decodeLetter), func(l DeadLetter) bool {
		s.tx.Delete(letterIDKey(op.Tenant, l.ID))
		a.DeadLetters++
		return true
	})
	if err != nil {
		return nil, err
	}
	subs, err := subscriptions(s.v, op.Tenant, op.Queue, "")
	if err != nil {
		return nil, err
	}
	for _, g := range subs {
		if g.Queue == op.Queue {
			a.Groups++
		}
	}
	for _, prefix := range []byte{prefixGP, prefixGroup, prefixLetter, prefixMetadata, prefixDeleted, prefixDelCount} {
		p := name(name([]byte{prefix}, op.Tenant), op.Queue)
		s.tx.DeleteRange(p, wire.PrefixEnd(p))
	}
	s.released(op.Tenant, op.Queue)
	b := binary.AppendUvarint(nil, uint64(a.Groups))
	return binary.AppendUvarint(b, uint64(a.DeadLetters)), nil
}

// DecodeDropQueueAnswer reads the answer of a DropQueueOp.
func DecodeDropQueueAnswer(b []byte) (DropQueueAnswer, error) {
	d := family.NewDecoder(b, ErrCorrupt)
	a := DropQueueAnswer{Groups: int(d.Uvarint()), DeadLetters: int(d.Uvarint())}
	d.Expect(len(d.B) == 0, "trailing bytes")
	if d.Err != nil {
		return DropQueueAnswer{}, fmt.Errorf("drop queue answer: %w", d.Err)
	}
	return a, nil
}

// DeleteQueue deletes a queue: this family's state of it, what the ops
// of also drop of other families' (the streams' state of the queries
// reading it), and raftlog's queue, partitions, records and dedup
// entries, in one entry.
func (c *Consumer) DeleteQueue(ctx context.Context, tenant, queue string, also ...raftlog.Op) (queuelog.DeleteQueueAnswer, DropQueueAnswer, error) {
	drop := DropQueueOp{Tenant: tenant, Queue: queue}
	del := queuelog.DeleteQueueOp{Tenant: tenant, Queue: queue}
	ops := append(append([]raftlog.Op{drop.Op()}, also...), del.Op())
	res, err := c.Shard.Propose(ctx, raftlog.Command{Ops: ops})
	if err != nil {
		return queuelog.DeleteQueueAnswer{}, DropQueueAnswer{}, err
	}
	if !res.Applied() {
		why, _ := raftlog.Rejected(res.Ops[res.Aborted])
		return queuelog.DeleteQueueAnswer{}, DropQueueAnswer{}, fmt.Errorf("%w: %s", raftlog.ErrRejected, why)
	}
	d, err := DecodeDropQueueAnswer(res.Ops[0])
	if err != nil {
		return queuelog.DeleteQueueAnswer{}, DropQueueAnswer{}, err
	}
	q, err := queuelog.DecodeDeleteQueueAnswer(res.Ops[len(ops)-1])
	return q, d, err
}

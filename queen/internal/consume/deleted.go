package consume

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

const kindDeleteMessage byte = 12

// DeleteMessageOp deletes one message for every consumer (DELETE
// /api/v1/messages/:partitionId/:transactionId): no group is delivered it
// again, a group that held it under a lease has it settled, and a group
// that reads the partition later passes it. The record itself stays in
// the queue log, for offset reads and the S3 sink, until retention trims
// it; its dead letters stay in the DLQ.
//
// The op names the message as the proposer found it: the partition's id
// (PartitionInfo.UID) and the record's transaction id with its offset. It
// deletes nothing unless the entry finds that very record there: not an
// offset not pushed yet, nor the same offset of a partition deleted and
// created again since.
type DeleteMessageOp struct {
	Tenant, Queue, Partition string
	UID                      uint64
	Offset                   int64
	TransactionID            string
}

// Op encodes o as an op of a command.
func (o *DeleteMessageOp) Op() raftlog.Op {
	b := []byte{opVersion, kindDeleteMessage}
	for _, x := range []string{o.Tenant, o.Queue, o.Partition} {
		b = wire.AppendString(b, x)
	}
	b = binary.AppendUvarint(b, o.UID)
	b = binary.AppendVarint(b, o.Offset)
	return raftlog.Op{Kind: OpConsume, Data: wire.AppendString(b, o.TransactionID)}
}

func deletedKey(tenant, queue, partition string, off int64) []byte {
	return binary.BigEndian.AppendUint64(name(name(name([]byte{prefixDeleted}, tenant), queue), partition), uint64(off))
}

func delCountKey(tenant, queue, partition string) []byte {
	return name(name(name([]byte{prefixDelCount}, tenant), queue), partition)
}

// Apply marks the message deleted and settles it for every group
// that has state on its partition; it answers 1, or 0 when it was deleted
// already or is not the record the op names.
func (op *DeleteMessageOp) Apply(s *state) ([]byte, error) {
	pi, err := queuelog.Partition(s.v, op.Tenant, op.Queue, op.Partition)
	if errors.Is(err, queuelog.ErrUnknownPartition) {
		return []byte{0}, nil
	}
	if err != nil {
		return nil, err
	}
	if pi.UID != op.UID || op.Offset < pi.LogStart || op.Offset > pi.LastOffset {
		return []byte{0}, nil
	}
	rec, ok, err := s.readRecord(op.Tenant, op.Queue, op.Partition, op.Offset)
	if err != nil || !ok || rec.TransactionID != op.TransactionID {
		return []byte{0}, err
	}
	k := deletedKey(op.Tenant, op.Queue, op.Partition, op.Offset)
	_, done, err := s.tx.Get(k)
	if err != nil || done {
		return []byte{0}, err
	}
	s.tx.Set(k, binary.AppendVarint(nil, s.at.Stamp))
	n, err := deletedCount(s.tx.Get, op.Tenant, op.Queue, op.Partition)
	if err != nil {
		return nil, err
	}
	s.tx.Set(delCountKey(op.Tenant, op.Queue, op.Partition), binary.AppendUvarint(nil, n+1))
	groups, err := GroupNames(s.v, op.Tenant, op.Queue)
	if err != nil {
		return nil, err
	}
	for _, group := range groups {
		g, old, ok, err := s.loadGP(op.Tenant, op.Queue, group, op.Partition)
		if err != nil {
			return nil, err
		}
		if !ok || op.Offset < g.Cursor {
			continue
		}
		m := g.msg(op.Offset)
		m.Acked, m.Pending = true, false
		if g.LeaseID != "" && !g.pending() {
			if err := s.dropFromLease(g.LeaseID, op.Partition); err != nil {
				return nil, err
			}
			g.release()
		}
		g.advance(pi.LogStart)
		s.saveGP(op.Tenant, op.Queue, group, op.Partition, &g, old)
	}
	s.released(op.Tenant, op.Queue)
	return []byte{1}, nil
}

// deletedCount is how many messages of a partition are deleted.
func deletedCount(get func([]byte) ([]byte, bool, error), tenant, queue, partition string) (uint64, error) {
	b, ok, err := get(delCountKey(tenant, queue, partition))
	if err != nil || !ok {
		return 0, err
	}
	n, w := binary.Uvarint(b)
	if w <= 0 {
		return 0, storageErr("deleted count", fmt.Errorf("%x", b))
	}
	return n, nil
}

// Deleted returns a function that says whether an offset of a partition
// was deleted (DeleteMessageOp), reading nothing more for a partition with
// no deleted message.
func Deleted(v *raftlog.View, tenant, queue, partition string) (func(off int64) (bool, error), error) {
	n, err := deletedCount(v.Get, tenant, queue, partition)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return func(int64) (bool, error) { return false, nil }, nil
	}
	return func(off int64) (bool, error) {
		_, ok, err := v.Get(deletedKey(tenant, queue, partition, off))
		return ok, err
	}, nil
}

// DeleteMessage deletes a message for every consumer (see
// DeleteMessageOp); deleted is false when it was deleted already.
func (c *Consumer) DeleteMessage(ctx context.Context, op DeleteMessageOp) (deleted bool, err error) {
	ans, _, err := c.Shard.ProposeOp(ctx, op.Op())
	if err != nil {
		return false, err
	}
	return len(ans) == 1 && ans[0] == 1, nil
}

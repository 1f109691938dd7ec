package queuelog

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// DeleteQueueOp deletes a queue from the queue log on every node alike: its
// options, its partitions with their records and dedup entries. A push
// after it creates the queue anew, with new partitions (new uids and ids)
// whose offsets start at 0 again. Other families' state about the queue
// (consumer groups, dead letters) is theirs to delete, in the same command.
type DeleteQueueOp struct {
	Tenant, Queue string
}

// DeleteQueueAnswer is what a DeleteQueueOp deleted.
type DeleteQueueAnswer struct {
	Found      bool   // the queue existed
	Partitions uint64 // partitions deleted
	Records    int64  // records they held (high watermark minus log start)
}

// raftlog.Op encodes d as an op of a command.
func (d *DeleteQueueOp) Op() raftlog.Op {
	b := appendName(appendName([]byte{opVersion}, d.Tenant), d.Queue)
	return raftlog.Op{Kind: OpDeleteQueue, Data: b}
}

func decodeDeleteQueueOp(b []byte) (DeleteQueueOp, error) {
	var d DeleteQueueOp
	if len(b) == 0 || b[0] != opVersion {
		return d, fmt.Errorf("%w: delete queue op version", raftlog.ErrCorruptEntry)
	}
	dec := newDecoder(b[1:])
	d.Tenant, d.Queue = string(dec.Bytes()), string(dec.Bytes())
	if dec.Err == nil && len(dec.B) != 0 {
		dec.Fail("trailing bytes")
	}
	return d, dec.Err
}

// applyDeleteQueue deletes with one range per partition for its records
// and one for its dedup entries: the entry's size and apply cost grow with
// the partitions, never with the records.
func applyDeleteQueue(tx *raftlog.Txn, at raftlog.ApplyInfo, op *DeleteQueueOp) ([]byte, error) {
	var a DeleteQueueAnswer
	_, ok, err := getQueue(tx.Get, op.Tenant, op.Queue)
	if err != nil {
		return nil, err
	}
	if ok {
		a.Found = true
		type part struct {
			uid  uint64
			name string
		}
		var parts []part
		var scanErr error
		prefix := storefmt.QueuePrefix(storefmt.PrefixCreated, op.Tenant, op.Queue)
		err := tx.View(at).Scan(prefix, wire.PrefixEnd(prefix), func(_, val []byte) bool {
			uid, name, err := storefmt.DecodeCreated(val)
			if err != nil {
				scanErr = err
				return false
			}
			parts = append(parts, part{uid, name})
			return true
		})
		if err == nil {
			err = scanErr
		}
		if err != nil {
			return nil, err
		}
		for _, p := range parts {
			m, err := storefmt.LoadMeta(tx.Get, p.uid)
			if err != nil {
				return nil, err
			}
			a.Partitions++
			a.Records += m.NextOffset - m.LogStart
			r := binary.BigEndian.AppendUint64([]byte{storefmt.PrefixRecord}, p.uid)
			tx.DeleteRange(r, wire.PrefixEnd(r))
			d := binary.BigEndian.AppendUint64([]byte{storefmt.PrefixDedup}, p.uid)
			tx.DeleteRange(d, wire.PrefixEnd(d))
			tx.Delete(storefmt.MetaKey(p.uid))
			tx.Delete(storefmt.PartitionKey(op.Tenant, op.Queue, p.name))
			tx.Notify(watchKey(at.Shard, p.uid))
		}
		tx.DeleteRange(prefix, wire.PrefixEnd(prefix))
		tx.Delete(storefmt.QueueKey(op.Tenant, op.Queue))
		tx.Notify(QueueWatchKey(at.Shard, op.Tenant, op.Queue))
	}
	return appendDeleteQueueAnswer(nil, a), nil
}

func appendDeleteQueueAnswer(b []byte, a DeleteQueueAnswer) []byte {
	var found byte
	if a.Found {
		found = 1
	}
	b = append(b, found)
	b = binary.AppendUvarint(b, a.Partitions)
	return binary.AppendVarint(b, a.Records)
}

// DecodeDeleteQueueAnswer reads the answer of a DeleteQueueOp.
func DecodeDeleteQueueAnswer(b []byte) (DeleteQueueAnswer, error) {
	d := newDecoder(b)
	var a DeleteQueueAnswer
	a.Found = d.Byte() == 1
	a.Partitions, a.Records = d.Uvarint(), d.Varint()
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	return a, d.Err
}

// DeleteQueue deletes a queue from the queue log (DeleteQueueOp) alone;
// the broker proposes it with its families' ops in one command instead.
func DeleteQueue(ctx context.Context, s *raftlog.Shard, op DeleteQueueOp) (DeleteQueueAnswer, error) {
	answer, _, err := s.ProposeOp(ctx, op.Op())
	if err != nil {
		return DeleteQueueAnswer{}, err
	}
	return DecodeDeleteQueueAnswer(answer)
}

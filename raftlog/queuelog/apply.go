package queuelog

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
)

// DefaultDedupWindowSeconds is a queue's dedup window unless its options
// say otherwise (dedupWindowSeconds, contract.QueueOptionTable: 0 turns
// deduplication off; stored values are read within its range).
const DefaultDedupWindowSeconds = 3600

// Appliers are the queue log's appliers by op kind, OpPush to
// OpDeleteQueue, to pass to raftlog.Host.StartShard with the other
// families' appliers. Every node of a shard runs them.
func Appliers() map[raftlog.OpKind]raftlog.Applier {
	m := map[raftlog.OpKind]raftlog.Applier{}
	for _, k := range []raftlog.OpKind{OpPush, OpConfigure, OpTrim, OpDedupSweep, OpDeleteQueue} {
		m[k] = queueApplier{kind: k}
	}
	return m
}

// queueApplier applies the queue log's op of one kind.
type queueApplier struct{ kind raftlog.OpKind }

func (k queueApplier) Apply(tx *raftlog.Txn, at raftlog.ApplyInfo, data []byte) ([]byte, error) {
	switch k.kind {
	case OpPush:
		return decodeAndApply(tx, at, data, decodePushOp, applyPush)
	case OpConfigure:
		return decodeAndApply(tx, at, data, decodeConfigureOp, applyConfigure)
	case OpTrim:
		return decodeAndApply(tx, at, data, decodeTrimOp, applyTrim)
	case OpDedupSweep:
		return decodeAndApply(tx, at, data, decodeDedupSweepOp, applyDedupSweep)
	case OpDeleteQueue:
		return decodeAndApply(tx, at, data, decodeDeleteQueueOp, applyDeleteQueue)
	}
	return nil, fmt.Errorf("raftlog: op kind %d is not the queue log's", k.kind)
}

// decodeAndApply decodes data with decode and applies the op with apply;
// an op that does not decode is refused with the decoder's error.
func decodeAndApply[O any](tx *raftlog.Txn, at raftlog.ApplyInfo, data []byte,
	decode func([]byte) (O, error), apply func(*raftlog.Txn, raftlog.ApplyInfo, *O) ([]byte, error)) ([]byte, error) {
	op, err := decode(data)
	if err != nil {
		return nil, err
	}
	return apply(tx, at, &op)
}

// Grows: a push appends records, a configure may create a queue; a trim,
// a dedup sweep and a queue delete only remove.
func (k queueApplier) Grows([]byte) bool { return k.kind == OpPush || k.kind == OpConfigure }

// getQueue reads a queue's meta; ok is false when the queue does not exist.
func getQueue(get func([]byte) ([]byte, bool, error), tenant, queue string) (storefmt.QueueMeta, bool, error) {
	v, ok, err := get(storefmt.QueueKey(tenant, queue))
	if err != nil || !ok {
		return storefmt.QueueMeta{}, false, err
	}
	q, err := storefmt.DecodeQueueMeta(v)
	return q, err == nil, err
}

// pushState caches, for one push op, the queues and partitions it touches.
type pushState struct {
	tx      *raftlog.Txn
	at      raftlog.ApplyInfo
	tenant  string
	queues  map[string]*pushQueue
	parts   map[[2]string]*storefmt.PartitionMeta
	order   [][2]string // partitions in first-touch order, written in that order
	qorder  []string
	nextUID uint64
	uidRead bool
}

// pushQueue is a queue as one push sees it.
type pushQueue struct {
	meta storefmt.QueueMeta
	// window is the dedup window in µs (0: off), from the options.
	window int64
	// room is how many more records the queue may hold (maxSize less what
	// it holds before this push and what the push appended so far); -1:
	// no bound.
	room int64
	// dirty: the meta changed (the queue or a partition was created) and
	// is written back; an unchanged queue is not rewritten per push.
	dirty bool
}

func applyPush(tx *raftlog.Txn, at raftlog.ApplyInfo, op *PushOp) ([]byte, error) {
	if err := contract.Tenant.Check("tenant", op.Tenant); err != nil {
		return nil, fmt.Errorf("raftlog: push: %w", err)
	}
	st := &pushState{tx: tx, at: at, tenant: op.Tenant, queues: map[string]*pushQueue{}, parts: map[[2]string]*storefmt.PartitionMeta{}}
	answer := binary.AppendUvarint(nil, uint64(len(op.Items)))
	for i := range op.Items {
		it := &op.Items[i]
		q, err := st.queue(it.Queue, i)
		if err != nil {
			return nil, err
		}
		p, err := st.partition(it.Queue, it.Partition, q, i)
		if err != nil {
			return nil, err
		}
		if err := contract.TransactionID.Check("transactionId", it.TransactionID); err != nil {
			return nil, fmt.Errorf("raftlog: push item %d: %w", i, err)
		}
		a := PushAnswer{Offset: p.NextOffset, MessageID: it.MessageID, PartitionID: p.ID}
		dk := storefmt.DedupKey(p.UID, it.TransactionID)
		if it.Dedup && q.window > 0 {
			v, ok, err := tx.GetDedup(dk)
			if err != nil {
				return nil, err
			}
			if ok {
				d := newDecoder(v)
				off, stamp := d.Varint(), d.Varint()
				if d.Err == nil && len(d.B) == 16 && contract.SubSat(at.Stamp, stamp) < q.window {
					a.Duplicate, a.Offset = true, off
					copy(a.MessageID[:], d.B)
					if it.Strict {
						return nil, raftlog.Abort(appendPushAnswer(binary.AppendUvarint(nil, uint64(i)), a))
					}
					answer = appendPushAnswer(answer, a)
					continue
				}
			}
		}
		if q.room == 0 && !it.Strict {
			// maxSize: a transaction's pushes are not bounded by it.
			answer = appendPushAnswer(answer, PushAnswer{Full: true, MessageID: it.MessageID, PartitionID: p.ID})
			continue
		}
		if q.room > 0 {
			q.room--
		}
		rec := storefmt.StoredRecord{Stamp: at.Stamp, MsgID: it.MessageID, TxID: it.TransactionID, TraceID: it.TraceID,
			ProducerSub: it.ProducerSub, Payload: it.Payload}
		tx.Set(storefmt.RecordKey(p.UID, p.NextOffset), rec.Encode())
		if it.Dedup && q.window > 0 {
			dv := binary.AppendVarint(nil, p.NextOffset)
			dv = binary.AppendVarint(dv, at.Stamp)
			tx.Set(dk, append(dv, it.MessageID[:]...))
		}
		p.NextOffset++
		p.LastWrite = at.Stamp
		answer = appendPushAnswer(answer, a)
	}
	for _, name := range st.qorder {
		if q := st.queues[name]; q.dirty {
			tx.Set(storefmt.QueueKey(op.Tenant, name), q.meta.Encode())
		}
		tx.Notify(QueueWatchKey(at.Shard, op.Tenant, name))
	}
	for _, k := range st.order {
		p := st.parts[k]
		tx.Set(storefmt.MetaKey(p.UID), p.Encode())
		tx.Notify(watchKey(at.Shard, p.UID))
		tx.Notify(PartitionWatchKey(at.Shard, op.Tenant, k[0], k[1]))
	}
	if st.uidRead {
		tx.Set(storefmt.NextUIDKey, binary.BigEndian.AppendUint64(nil, st.nextUID))
	}
	return answer, nil
}

// queue loads the queue of item i, checking its name the first time.
func (st *pushState) queue(name string, item int) (*pushQueue, error) {
	if q, ok := st.queues[name]; ok {
		return q, nil
	}
	if err := contract.Queue.Check("queue", name); err != nil {
		return nil, fmt.Errorf("raftlog: push item %d: %w", item, err)
	}
	m, ok, err := getQueue(st.tx.Get, st.tenant, name)
	if err != nil {
		return nil, err
	}
	q := &pushQueue{meta: m}
	if !ok {
		q.meta, q.dirty = storefmt.QueueMeta{Created: st.at.Stamp, Options: []byte("{}")}, true
	}
	o := contract.ParseQueueOptions(q.meta.Options)
	q.window, q.room = contract.Micros(o.DedupWindowSeconds), -1
	if o.MaxSize > 0 && ok {
		held, err := retained(st.tx.View(st.at), st.tenant, name)
		if err != nil {
			return nil, err
		}
		q.room = max(o.MaxSize-held, 0)
	}
	st.queues[name] = q
	st.qorder = append(st.qorder, name)
	return q, nil
}

// partition loads the partition of item i, creating it (its names written
// once) when it is new, and checking its name the first time.
func (st *pushState) partition(queue, name string, q *pushQueue, item int) (*storefmt.PartitionMeta, error) {
	k := [2]string{queue, name}
	if p, ok := st.parts[k]; ok {
		return p, nil
	}
	if err := contract.Partition.Check("partition", name); err != nil {
		return nil, fmt.Errorf("raftlog: push item %d: %w", item, err)
	}
	p, ok, err := loadPartition(st.tx.Get, st.tenant, queue, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		uid, err := st.uid()
		if err != nil {
			return nil, err
		}
		q.meta.Partitions++
		q.dirty = true
		p = storefmt.PartitionMeta{Seq: q.meta.Partitions, UID: uid, ID: derivedUUID("partition", st.at, item), Created: st.at.Stamp}
		st.tx.Set(storefmt.PartitionKey(st.tenant, queue, name), storefmt.UIDValue(uid))
		st.tx.Set(storefmt.CreatedKey(st.tenant, queue, p.Seq), storefmt.CreatedValue(uid, name))
		st.tx.Notify(newPartitionKey(st.at.Shard))
	}
	st.parts[k] = &p
	st.order = append(st.order, k)
	return &p, nil
}

// uid hands out the next shard-wide partition uid.
func (st *pushState) uid() (uint64, error) {
	if !st.uidRead {
		v, ok, err := st.tx.Get(storefmt.NextUIDKey)
		if err != nil {
			return 0, err
		}
		st.nextUID, st.uidRead = 1, true
		if ok && len(v) == 8 {
			st.nextUID = binary.BigEndian.Uint64(v)
		}
	}
	st.nextUID++
	return st.nextUID - 1, nil
}

// derivedUUID makes a UUID (version 8, RFC 9562) from the log position of
// what it names, so every node derives the same one.
func derivedUUID(what string, at raftlog.ApplyInfo, item int) [16]byte {
	h := sha256.New()
	fmt.Fprintf(h, "queen/%s/%d/%d/%d/%d", what, at.Shard, at.Index, at.Op, item)
	if at.Nested > 0 {
		fmt.Fprintf(h, "/%d", at.Nested)
	}
	var id [16]byte
	copy(id[:], h.Sum(nil))
	id[6] = id[6]&0x0f | 0x80
	id[8] = id[8]&0x3f | 0x80
	return id
}

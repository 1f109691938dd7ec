package raftlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog/wire"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
)

// DefaultDedupWindowSeconds is a queue's dedup window unless its options
// say otherwise (dedupWindowSeconds, contract.QueueOptionTable: 0 turns
// deduplication off; stored values are read within its range).
const DefaultDedupWindowSeconds = 3600

// queueApplier applies the queue log's op of one kind: push, configure or trim.
type queueApplier struct{ kind OpKind }

func (k queueApplier) Apply(tx *Txn, at ApplyInfo, data []byte) ([]byte, error) {
	switch k.kind {
	case OpPush:
		op, err := decodePushOp(data)
		if err != nil {
			return nil, err
		}
		return applyPush(tx, at, &op)
	case OpConfigure:
		op, err := decodeConfigureOp(data)
		if err != nil {
			return nil, err
		}
		return applyConfigure(tx, at, &op)
	case OpTrim:
		op, err := decodeTrimOp(data)
		if err != nil {
			return nil, err
		}
		return applyTrim(tx, at, &op)
	case OpDedupSweep:
		op, err := decodeDedupSweepOp(data)
		if err != nil {
			return nil, err
		}
		return applyDedupSweep(tx, at, &op)
	case OpDeleteQueue:
		op, err := decodeDeleteQueueOp(data)
		if err != nil {
			return nil, err
		}
		return applyDeleteQueue(tx, at, &op)
	}
	return nil, fmt.Errorf("raftlog: op kind %d is not the queue log's", k.kind)
}

// Grows: a push appends records, a configure may create a queue; a trim,
// a dedup sweep and a queue delete only remove.
func (k queueApplier) Grows([]byte) bool { return k.kind == OpPush || k.kind == OpConfigure }

// queueMeta is what the queue log keeps about one queue.
type queueMeta struct {
	Created    int64
	Partitions uint64 // partitions created so far: the last one's Seq
	Options    []byte // a JSON object
}

func (q *queueMeta) encode() []byte {
	b := []byte{storefmt.MetaVersion}
	b = binary.AppendVarint(b, q.Created)
	b = binary.AppendUvarint(b, q.Partitions)
	return append(b, q.Options...)
}

func decodeQueueMeta(b []byte) (queueMeta, error) {
	var q queueMeta
	if len(b) == 0 || b[0] != storefmt.MetaVersion {
		return q, fmt.Errorf("%w: queue meta version", ErrStorage)
	}
	d := newDecoder(b[1:])
	q.Created, q.Partitions = d.Varint(), d.Uvarint()
	if d.Err != nil {
		return q, fmt.Errorf("%w: queue meta", ErrStorage)
	}
	q.Options = d.B
	return q, nil
}

// getQueue reads a queue's meta; ok is false when the queue does not exist.
func getQueue(get func([]byte) ([]byte, bool, error), tenant, queue string) (queueMeta, bool, error) {
	v, ok, err := get(storefmt.QueueKey(tenant, queue))
	if err != nil || !ok {
		return queueMeta{}, false, err
	}
	q, err := decodeQueueMeta(v)
	return q, err == nil, err
}

// pushState caches, for one push op, the queues and partitions it touches.
type pushState struct {
	tx      *Txn
	at      ApplyInfo
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
	meta queueMeta
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

func applyPush(tx *Txn, at ApplyInfo, op *PushOp) ([]byte, error) {
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
			v, ok, err := tx.getDedup(dk)
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
						return nil, Abort(appendPushAnswer(binary.AppendUvarint(nil, uint64(i)), a))
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
			tx.Set(storefmt.QueueKey(op.Tenant, name), q.meta.encode())
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
		q.meta, q.dirty = queueMeta{Created: st.at.Stamp, Options: []byte("{}")}, true
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
func derivedUUID(what string, at ApplyInfo, item int) [16]byte {
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

func applyConfigure(tx *Txn, at ApplyInfo, op *ConfigureOp) ([]byte, error) {
	if err := checkNames(op.Tenant, op.Queue, ""); err != nil {
		return nil, fmt.Errorf("raftlog: configure: %w", err)
	}
	var patch map[string]json.RawMessage
	if err := json.Unmarshal(op.Options, &patch); err != nil || patch == nil {
		return nil, fmt.Errorf("raftlog: configure %s: options are not a JSON object", op.Queue)
	}
	// The proposer checked the options; a follower checks them again, so
	// that no option outside its range is ever stored.
	if _, err := contract.NormalizeOptions(patch); err != nil {
		return nil, fmt.Errorf("raftlog: configure %s: %w", op.Queue, err)
	}
	q, ok, err := getQueue(tx.Get, op.Tenant, op.Queue)
	if err != nil {
		return nil, err
	}
	if !ok {
		q = queueMeta{Created: at.Stamp, Options: []byte("{}")}
	}
	stored := map[string]json.RawMessage{}
	if !op.Replace {
		if err := json.Unmarshal(q.Options, &stored); err != nil {
			return nil, fmt.Errorf("%w: queue %s options", ErrStorage, op.Queue)
		}
	}
	for k, v := range patch {
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			delete(stored, k)
		} else {
			stored[k] = v
		}
	}
	// encoding/json writes map keys sorted: the same bytes on every node.
	if q.Options, err = json.Marshal(stored); err != nil {
		return nil, fmt.Errorf("raftlog: configure %s: %w", op.Queue, err)
	}
	tx.Set(storefmt.QueueKey(op.Tenant, op.Queue), q.encode())
	return q.Options, nil
}

func applyTrim(tx *Txn, at ApplyInfo, op *TrimOp) ([]byte, error) {
	if err := checkNames(op.Tenant, op.Queue, op.Partition); err != nil {
		return nil, fmt.Errorf("raftlog: trim: %w", err)
	}
	var uids []uint64
	add := func(v []byte) bool {
		uid, err := storefmt.DecodeUID(v)
		if err == nil {
			uids = append(uids, uid)
		}
		return err == nil
	}
	var err error
	if op.Partition != "" {
		v, ok, gerr := tx.Get(storefmt.PartitionKey(op.Tenant, op.Queue, op.Partition))
		if err = gerr; err == nil && ok && !add(v) {
			err = fmt.Errorf("%w: partition uid", ErrStorage)
		}
	} else {
		prefix := storefmt.QueuePrefix(storefmt.PrefixPartition, op.Tenant, op.Queue)
		bad := false
		err = tx.Scan(prefix, wire.PrefixEnd(prefix), func(_, v []byte) bool { bad = !add(v); return !bad })
		if err == nil && bad {
			err = fmt.Errorf("%w: partition uid", ErrStorage)
		}
	}
	if err != nil {
		return nil, err
	}
	var deleted uint64
	for _, uid := range uids {
		n, err := trimPartition(tx, at, uid, op.Before)
		if err != nil {
			return nil, err
		}
		deleted += n
	}
	return binary.AppendUvarint(nil, deleted), nil
}

// trimPartition deletes the records of partition uid stamped before
// before, and their dedup entries, and moves its log start past them.
func trimPartition(tx *Txn, at ApplyInfo, uid uint64, before int64) (uint64, error) {
	p, err := storefmt.LoadMeta(tx.Get, uid)
	if err != nil {
		return 0, err
	}
	start := p.LogStart
	var dedups [][]byte
	var bad error
	err = tx.Scan(storefmt.RecordKey(p.UID, start), storefmt.RecordKey(p.UID, p.NextOffset), func(k, v []byte) bool {
		stamp, txid, derr := storefmt.RecordHead(v)
		if derr != nil || stamp >= before {
			bad = derr
			return false
		}
		off := int64(binary.BigEndian.Uint64(k[9:]))
		if off >= p.DedupFrom { // below it, no entry is left
			dedups = append(dedups, storefmt.DedupKey(p.UID, txid))
		}
		p.LogStart = off + 1
		return true
	})
	if err == nil {
		err = bad
	}
	if err != nil || p.LogStart == start {
		return 0, err
	}
	tx.DeleteRange(storefmt.RecordKey(p.UID, start), storefmt.RecordKey(p.UID, p.LogStart))
	p.DedupFrom = max(p.DedupFrom, p.LogStart)
	for _, dk := range dedups {
		dv, ok, err := tx.Get(dk)
		if err != nil {
			return 0, err
		}
		if off, n := binary.Varint(dv); ok && n > 0 && off < p.LogStart {
			tx.Delete(dk)
		}
	}
	tx.Set(storefmt.MetaKey(p.UID), p.Encode())
	tx.Notify(watchKey(at.Shard, p.UID))
	return uint64(p.LogStart - start), nil
}

// checkNames checks a tenant, a queue and (when not "") a partition
// against the contract: a follower applying an entry trusts nothing its
// proposer checked.
func checkNames(tenant, queue, partition string) error {
	if err := contract.Tenant.Check("tenant", tenant); err != nil {
		return err
	}
	if err := contract.Queue.Check("queue", queue); err != nil {
		return err
	}
	if partition != "" {
		return contract.Partition.Check("partition", partition)
	}
	return nil
}

// retained counts the records a queue holds (not deleted by retention):
// what maxSize bounds. It reads every partition's meta, so only a push to
// a queue with maxSize pays for it.
func retained(v *View, tenant, queue string) (int64, error) {
	var n int64
	err := v.EachPartition(tenant, queue, 0, func(p PartitionInfo) (bool, error) {
		n += p.LastOffset + 1 - p.LogStart
		return true, nil
	})
	return n, err
}

// applyDedupSweep deletes the dedup entries of a partition's records that
// are out of the queue's dedup window at the entry's stamp, walking the
// records from DedupFrom in offset (so stamp) order, at most op.Limit of
// them. An entry is deleted only while it is still the record's: a later
// push of the same transactionId, out of the window, owns it then.
func applyDedupSweep(tx *Txn, at ApplyInfo, op *DedupSweepOp) ([]byte, error) {
	if err := checkNames(op.Tenant, op.Queue, op.Partition); err != nil {
		return nil, fmt.Errorf("raftlog: dedup sweep: %w", err)
	}
	q, ok, err := getQueue(tx.Get, op.Tenant, op.Queue)
	if err != nil || !ok {
		return binary.AppendUvarint(nil, 0), err
	}
	p, ok, err := loadPartition(tx.Get, op.Tenant, op.Queue, op.Partition)
	if err != nil || !ok {
		return binary.AppendUvarint(nil, 0), err
	}
	cutoff := contract.SubSat(at.Stamp, contract.Micros(contract.ParseQueueOptions(q.Options).DedupWindowSeconds))
	from := max(p.DedupFrom, p.LogStart)
	type done struct {
		key []byte
		off int64
	}
	var walked []done
	next, limit := from, max(op.Limit, 1)
	var bad error
	err = tx.Scan(storefmt.RecordKey(p.UID, from), storefmt.RecordKey(p.UID, p.NextOffset), func(k, v []byte) bool {
		stamp, txid, derr := storefmt.RecordHead(v)
		if derr != nil {
			bad = derr
			return false
		}
		if stamp >= cutoff || len(walked) == limit {
			return false
		}
		off := int64(binary.BigEndian.Uint64(k[9:]))
		walked = append(walked, done{storefmt.DedupKey(p.UID, txid), off})
		next = off + 1
		return true
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return nil, err
	}
	var deleted uint64
	for _, w := range walked {
		dv, ok, err := tx.Get(w.key)
		if err != nil {
			return nil, err
		}
		if off, n := binary.Varint(dv); ok && n > 0 && off == w.off {
			tx.Delete(w.key)
			deleted++
		}
	}
	if next != p.DedupFrom {
		p.DedupFrom = next
		tx.Set(storefmt.MetaKey(p.UID), p.Encode())
	}
	return binary.AppendUvarint(nil, deleted), nil
}

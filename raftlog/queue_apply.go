package raftlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// DefaultDedupWindowSeconds is a queue's dedup window unless its options
// say otherwise (dedupWindowSeconds; 0 turns deduplication off).
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
	}
	return nil, fmt.Errorf("raftlog: op kind %d is not the queue log's", k.kind)
}

// queueMeta is what the queue log keeps about one queue.
type queueMeta struct {
	Created    int64
	Partitions uint64 // partitions created so far: the last one's Seq
	Options    []byte // a JSON object
}

func (q *queueMeta) encode() []byte {
	b := []byte{metaVersion}
	b = binary.AppendVarint(b, q.Created)
	b = binary.AppendUvarint(b, q.Partitions)
	return append(b, q.Options...)
}

func decodeQueueMeta(b []byte) (queueMeta, error) {
	var q queueMeta
	if len(b) == 0 || b[0] != metaVersion {
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
	v, ok, err := get(queueKey(tenant, queue))
	if err != nil || !ok {
		return queueMeta{}, false, err
	}
	q, err := decodeQueueMeta(v)
	return q, err == nil, err
}

// dedupWindow returns the queue's dedup window in microseconds (0: off).
func (q *queueMeta) dedupWindow() int64 {
	var o struct {
		DedupWindowSeconds *int64 `json:"dedupWindowSeconds"`
	}
	if json.Unmarshal(q.Options, &o) != nil || o.DedupWindowSeconds == nil {
		return DefaultDedupWindowSeconds * 1_000_000
	}
	return max(*o.DedupWindowSeconds, 0) * 1_000_000
}

// pushState caches, for one push op, the queues and partitions it touches.
type pushState struct {
	tx      *Txn
	at      ApplyInfo
	tenant  string
	queues  map[string]*queueMeta
	parts   map[[2]string]*partitionMeta
	order   [][2]string // partitions in first-touch order, written in that order
	qorder  []string
	nextUID uint64
	uidRead bool
}

func applyPush(tx *Txn, at ApplyInfo, op *PushOp) ([]byte, error) {
	st := &pushState{tx: tx, at: at, tenant: op.Tenant, queues: map[string]*queueMeta{}, parts: map[[2]string]*partitionMeta{}}
	answer := binary.AppendUvarint(nil, uint64(len(op.Items)))
	for i := range op.Items {
		it := &op.Items[i]
		if it.Queue == "" || it.Partition == "" {
			return nil, fmt.Errorf("raftlog: push item %d: empty queue or partition name", i)
		}
		q, err := st.queue(it.Queue)
		if err != nil {
			return nil, err
		}
		p, err := st.partition(it.Queue, it.Partition, q, i)
		if err != nil {
			return nil, err
		}
		a := PushAnswer{Offset: p.NextOffset, MessageID: it.MessageID, PartitionID: p.ID}
		dk := dedupKey(p.UID, it.TransactionID)
		window := q.dedupWindow()
		if it.Dedup && window > 0 {
			v, ok, err := tx.Get(dk)
			if err != nil {
				return nil, err
			}
			if ok {
				d := newDecoder(v)
				off, stamp := d.Varint(), d.Varint()
				if d.Err == nil && len(d.B) == 16 && at.Stamp-stamp < window {
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
		rec := storedRecord{Stamp: at.Stamp, MsgID: it.MessageID, TxID: it.TransactionID, Payload: it.Payload}
		tx.Set(recordKey(p.UID, p.NextOffset), rec.encode())
		if it.Dedup && window > 0 {
			dv := binary.AppendVarint(nil, p.NextOffset)
			dv = binary.AppendVarint(dv, at.Stamp)
			tx.Set(dk, append(dv, it.MessageID[:]...))
		}
		p.NextOffset++
		p.LastWrite = at.Stamp
		answer = appendPushAnswer(answer, a)
	}
	for _, name := range st.qorder {
		tx.Set(queueKey(op.Tenant, name), st.queues[name].encode())
		tx.Notify(QueueWatchKey(at.Shard, op.Tenant, name))
	}
	for _, k := range st.order {
		p := st.parts[k]
		tx.Set(partitionKey(op.Tenant, k[0], k[1]), p.encode())
		tx.Notify(watchKey(at.Shard, p.UID))
	}
	if st.uidRead {
		tx.Set(nextUIDKey, binary.BigEndian.AppendUint64(nil, st.nextUID))
	}
	return answer, nil
}

func (st *pushState) queue(name string) (*queueMeta, error) {
	if q, ok := st.queues[name]; ok {
		return q, nil
	}
	q, ok, err := getQueue(st.tx.Get, st.tenant, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		q = queueMeta{Created: st.at.Stamp, Options: []byte("{}")}
	}
	st.queues[name] = &q
	st.qorder = append(st.qorder, name)
	return &q, nil
}

func (st *pushState) partition(queue, name string, q *queueMeta, item int) (*partitionMeta, error) {
	k := [2]string{queue, name}
	if p, ok := st.parts[k]; ok {
		return p, nil
	}
	v, ok, err := st.tx.Get(partitionKey(st.tenant, queue, name))
	if err != nil {
		return nil, err
	}
	var p partitionMeta
	if ok {
		if p, err = decodePartitionMeta(v); err != nil {
			return nil, err
		}
	} else {
		uid, err := st.uid()
		if err != nil {
			return nil, err
		}
		q.Partitions++
		p = partitionMeta{Seq: q.Partitions, UID: uid, ID: derivedUUID("partition", st.at, item), Created: st.at.Stamp}
		st.tx.Set(createdKey(st.tenant, queue, p.Seq), []byte(name))
		st.tx.Notify(newPartitionKey(st.at.Shard))
	}
	st.parts[k] = &p
	st.order = append(st.order, k)
	return &p, nil
}

// uid hands out the next shard-wide partition uid.
func (st *pushState) uid() (uint64, error) {
	if !st.uidRead {
		v, ok, err := st.tx.Get(nextUIDKey)
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
	var id [16]byte
	copy(id[:], h.Sum(nil))
	id[6] = id[6]&0x0f | 0x80
	id[8] = id[8]&0x3f | 0x80
	return id
}

func applyConfigure(tx *Txn, at ApplyInfo, op *ConfigureOp) ([]byte, error) {
	if op.Queue == "" {
		return nil, errors.New("raftlog: configure: empty queue name")
	}
	var patch map[string]json.RawMessage
	if err := json.Unmarshal(op.Options, &patch); err != nil || patch == nil {
		return nil, fmt.Errorf("raftlog: configure %s: options are not a JSON object", op.Queue)
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
	tx.Set(queueKey(op.Tenant, op.Queue), q.encode())
	return q.Options, nil
}

func applyTrim(tx *Txn, at ApplyInfo, op *TrimOp) ([]byte, error) {
	var names []string
	if op.Partition != "" {
		names = []string{op.Partition}
	} else {
		prefix := queuePrefix(prefixPartition, op.Tenant, op.Queue)
		err := tx.Scan(prefix, wire.PrefixEnd(prefix), func(k, _ []byte) bool {
			d := newDecoder(k[len(prefix):])
			names = append(names, string(d.Bytes()))
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	var deleted uint64
	for _, name := range names {
		pk := partitionKey(op.Tenant, op.Queue, name)
		v, ok, err := tx.Get(pk)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		p, err := decodePartitionMeta(v)
		if err != nil {
			return nil, err
		}
		start := p.LogStart
		var dedups [][]byte
		var bad error
		err = tx.Scan(recordKey(p.UID, start), recordKey(p.UID, p.NextOffset), func(k, v []byte) bool {
			r, derr := decodeRecord(v)
			if derr != nil || r.Stamp >= op.Before {
				bad = derr
				return false
			}
			dedups = append(dedups, dedupKey(p.UID, r.TxID))
			p.LogStart = int64(binary.BigEndian.Uint64(k[9:])) + 1
			return true
		})
		if err == nil {
			err = bad
		}
		if err != nil {
			return nil, err
		}
		if p.LogStart == start {
			continue
		}
		tx.DeleteRange(recordKey(p.UID, start), recordKey(p.UID, p.LogStart))
		for _, dk := range dedups {
			dv, ok, err := tx.Get(dk)
			if err != nil {
				return nil, err
			}
			if off, n := binary.Varint(dv); ok && n > 0 && off < p.LogStart {
				tx.Delete(dk)
			}
		}
		deleted += uint64(p.LogStart - start)
		tx.Set(pk, p.encode())
		tx.Notify(watchKey(at.Shard, p.UID))
	}
	return binary.AppendUvarint(nil, deleted), nil
}

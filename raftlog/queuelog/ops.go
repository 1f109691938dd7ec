package queuelog

import (
	"encoding/binary"
	"fmt"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/raftlog"
)

// The queue log's op kinds: their numbers are part of the log's format.
const (
	OpPush      raftlog.OpKind = 1 // append records (PushOp)
	OpConfigure raftlog.OpKind = 2 // store a queue's options (ConfigureOp)
	OpTrim      raftlog.OpKind = 3 // retention: delete records older than a stamp (TrimOp)
	// OpDedupSweep deletes dedup entries out of their window (DedupSweepOp).
	OpDedupSweep raftlog.OpKind = 4
	// OpDeleteQueue deletes a queue, its partitions, records and dedup
	// entries (DeleteQueueOp).
	OpDeleteQueue raftlog.OpKind = 5
)

// PushItem is one record to append to a queue's partition
// (contract.PushItem, the one type of a pushed record).
type PushItem = contract.PushItem

// PushOp appends records, in order, to the partitions of one tenant's
// queues; queues and partitions are created on first push. Every record of
// the op gets the entry's stamp.
type PushOp struct {
	Tenant string
	Items  []PushItem
}

// PushAnswer says what became of one PushItem.
type PushAnswer struct {
	// Duplicate: the item's TransactionID was seen within the dedup window;
	// nothing was written and Offset and MessageID are the original's.
	Duplicate bool
	// Full: the queue held its maxSize records already (judged where the
	// entry applies, so pushes through several nodes at once cannot pass
	// it together); nothing was written and Offset is 0.
	Full      bool
	Offset    int64
	MessageID [16]byte
	// PartitionID is the UUID of the partition's incarnation.
	PartitionID [16]byte
}

// opVersion is the first byte of the queue log's op encodings. A push op
// of version 1 (names with every item) still decodes: the log may hold
// entries of an older broker.
const (
	opVersion     = 1
	pushVersion   = 2
	pushVersionV1 = 1
)

// raftlog.Op encodes p as an op of a command. Each queue and each partition is
// named once in the op, in the order items first name it, and items refer
// to their partition by its place in that list:
//
//	2 | tenant | queues (count, names) | partitions (count, (queue index, name)*) |
//	items (count, (partition index | transactionId | message id(16) | flags |
//	       [trace id(16)] | [producer sub] | payload)*)
//
// flags: 1 dedup, 2 strict, 4 a trace id follows, 8 a producer sub (a
// name, not empty) follows. An older broker's ops have neither.
func (p *PushOp) Op() raftlog.Op {
	size := 16 + len(p.Tenant)
	for i := range p.Items {
		size += len(p.Items[i].TransactionID) + len(p.Items[i].ProducerSub) + len(p.Items[i].Payload) + 24
	}
	type pair struct{ queue, partition string }
	queues, parts := map[string]uint64{}, map[pair]uint64{} // looked up, never iterated
	var qnames []string
	var pnames []pair
	pidx := make([]uint64, len(p.Items))
	for i := range p.Items {
		it := &p.Items[i]
		k := pair{it.Queue, it.Partition}
		j, ok := parts[k]
		if !ok {
			if _, ok := queues[it.Queue]; !ok {
				queues[it.Queue] = uint64(len(qnames))
				qnames = append(qnames, it.Queue)
				size += len(it.Queue) + 3
			}
			j = uint64(len(pnames))
			parts[k] = j
			pnames = append(pnames, k)
			size += len(it.Partition) + 6
		}
		pidx[i] = j
	}
	b := make([]byte, 0, size)
	b = append(b, pushVersion)
	b = appendName(b, p.Tenant)
	b = binary.AppendUvarint(b, uint64(len(qnames)))
	for _, q := range qnames {
		b = appendName(b, q)
	}
	b = binary.AppendUvarint(b, uint64(len(pnames)))
	for _, k := range pnames {
		b = binary.AppendUvarint(b, queues[k.queue])
		b = appendName(b, k.partition)
	}
	b = binary.AppendUvarint(b, uint64(len(p.Items)))
	for i := range p.Items {
		it := &p.Items[i]
		b = binary.AppendUvarint(b, pidx[i])
		b = appendName(b, it.TransactionID)
		b = append(b, it.MessageID[:]...)
		b = append(b, pushFlags(it))
		if it.TraceID != [16]byte{} {
			b = append(b, it.TraceID[:]...)
		}
		if it.ProducerSub != "" {
			b = appendName(b, it.ProducerSub)
		}
		b = appendName(b, string(it.Payload))
	}
	return raftlog.Op{Kind: OpPush, Data: b}
}

func pushFlags(it *PushItem) byte {
	var flags byte
	if it.Dedup {
		flags |= 1
	}
	if it.Strict {
		flags |= 2
	}
	if it.TraceID != [16]byte{} {
		flags |= 4 // the trace id follows (absent in the ops of older brokers)
	}
	if it.ProducerSub != "" {
		flags |= 8 // the producer's subject follows (absent in older ops too)
	}
	return flags
}

// decodePushOp reads a push op of either version. Version 2 is refused
// unless it is the one encoding raftlog.Op gives: every name listed once, in the
// order of first use, and used.
func decodePushOp(b []byte) (PushOp, error) {
	var p PushOp
	if len(b) == 0 || (b[0] != pushVersion && b[0] != pushVersionV1) {
		return p, fmt.Errorf("%w: push op version", raftlog.ErrCorruptEntry)
	}
	if b[0] == pushVersionV1 {
		return decodePushOpV1(b[1:])
	}
	d := newDecoder(b[1:])
	p.Tenant = string(d.Bytes())
	queues := make([]string, d.Count(1))
	seen := map[string]bool{} // never iterated
	for i := range queues {
		queues[i] = string(d.Bytes())
		if seen[queues[i]] {
			d.Fail("push queue listed twice")
		}
		seen[queues[i]] = true
	}
	type pair struct {
		queue     int
		partition string
	}
	parts := make([]pair, d.Count(2))
	pseen := map[pair]bool{} // never iterated
	usedQ := 0
	for i := range parts {
		q := d.firstUseRef(len(queues), &usedQ, "push partition's queue")
		parts[i] = pair{int(q), string(d.Bytes())}
		if pseen[parts[i]] {
			d.Fail("push partition listed twice")
		}
		pseen[parts[i]] = true
	}
	if usedQ != len(queues) {
		d.Fail("push queue not used")
	}
	p.Items = make([]PushItem, d.Count(19))
	usedP := 0
	for i := range p.Items {
		j := d.firstUseRef(len(parts), &usedP, "push item's partition")
		if d.Err != nil {
			break
		}
		it := &p.Items[i]
		it.Queue, it.Partition = queues[parts[j].queue], parts[j].partition
		it.TransactionID = string(d.Bytes())
		if len(d.B) < 17 || d.B[16] > 15 {
			d.Fail("push item")
			break
		}
		copy(it.MessageID[:], d.B)
		flags := d.B[16]
		it.Dedup, it.Strict = flags&1 != 0, flags&2 != 0
		d.B = d.B[17:]
		if flags&4 != 0 {
			if len(d.B) < 16 || [16]byte(d.B[:16]) == [16]byte{} {
				d.Fail("push item trace id")
				break
			}
			copy(it.TraceID[:], d.B)
			d.B = d.B[16:]
		}
		if flags&8 != 0 {
			if it.ProducerSub = string(d.Bytes()); d.Err == nil && it.ProducerSub == "" {
				d.Fail("push item producer sub")
				break
			}
		}
		it.Payload = d.Bytes()
	}
	if d.Err == nil && usedP != len(parts) {
		d.Fail("push partition not used")
	}
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	return p, d.Err
}

// decodePushOpV1 reads version 1: names with every item.
func decodePushOpV1(b []byte) (PushOp, error) {
	var p PushOp
	d := newDecoder(b)
	p.Tenant = string(d.Bytes())
	n := d.Uvarint()
	if n > uint64(len(d.B)) {
		return p, fmt.Errorf("%w: push of %d items", raftlog.ErrCorruptEntry, n)
	}
	p.Items = make([]PushItem, n)
	for i := range p.Items {
		it := &p.Items[i]
		it.Queue, it.Partition, it.TransactionID = string(d.Bytes()), string(d.Bytes()), string(d.Bytes())
		if len(d.B) < 17 || d.B[16] > 3 {
			d.Fail("push item")
			break
		}
		copy(it.MessageID[:], d.B)
		it.Dedup, it.Strict = d.B[16]&1 != 0, d.B[16]&2 != 0
		d.B = d.B[17:]
		it.Payload = d.Bytes()
	}
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	return p, d.Err
}

// DecodePushAnswers reads the answer of a PushOp.
func DecodePushAnswers(b []byte) ([]PushAnswer, error) {
	d := newDecoder(b)
	n := d.Uvarint()
	if n > uint64(len(b)) {
		return nil, fmt.Errorf("%w: push answer", raftlog.ErrCorruptEntry)
	}
	out := make([]PushAnswer, n)
	for i := range out {
		if len(d.B) < 1 {
			d.Fail("push answer")
			break
		}
		if d.B[0] > 2 {
			d.Fail("push answer")
			break
		}
		out[i].Duplicate, out[i].Full = d.B[0] == 1, d.B[0] == 2
		d.B = d.B[1:]
		out[i].Offset = d.Varint()
		if len(d.B) < 32 {
			d.Fail("push answer")
			break
		}
		copy(out[i].MessageID[:], d.B)
		copy(out[i].PartitionID[:], d.B[16:])
		d.B = d.B[32:]
	}
	return out, d.Err
}

// DecodePushRollback reads the answer of a push op that rolled its entry
// back (the entry's Result.Aborted names it): the index of the strict item
// whose TransactionID was a duplicate, and the original's answer.
func DecodePushRollback(b []byte) (item int, original PushAnswer, err error) {
	d := newDecoder(b)
	item = int(d.Uvarint())
	if d.Err == nil && len(d.B) > 0 {
		d.B = append([]byte{1}, d.B...)
		as, err := DecodePushAnswers(d.B)
		if err == nil && len(as) == 1 {
			return item, as[0], nil
		}
	}
	return 0, PushAnswer{}, fmt.Errorf("%w: push rollback answer", raftlog.ErrCorruptEntry)
}

func appendPushAnswer(b []byte, a PushAnswer) []byte {
	switch {
	case a.Duplicate:
		b = append(b, 1)
	case a.Full:
		b = append(b, 2)
	default:
		b = append(b, 0)
	}
	b = binary.AppendVarint(b, a.Offset)
	b = append(b, a.MessageID[:]...)
	return append(b, a.PartitionID[:]...)
}

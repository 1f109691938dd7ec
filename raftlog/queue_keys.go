package raftlog

import (
	"encoding/binary"
	"fmt"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// The queue log's keys. Names are length-prefixed (uvarint), so no name can
// run into the next field, and a queue's partitions share a key prefix. A
// partition's names are stored once, when it is created: everything written
// per push (its meta, records, dedup entries) is keyed by its numeric uid,
// so a long name costs once per partition, never once per record or push.
//
//	'Q' tenant queue                    → queue meta (options); rewritten only when it changes
//	'P' tenant queue partition          → uid(8), written once
//	'C' tenant queue seq(8)             → uid(8) partition, in creation order, written once
//	'M' uid(8)                          → partition meta (offsets, stamps), no names
//	'R' uid(8) offset(8)                → record
//	'D' uid(8) transactionId            → dedup entry
//	'N' 'p'                             → the next partition uid
//
// The store's format (formatKey) says which layout it holds; an older
// one is rewritten into this one when the store opens (store_format.go).
const (
	prefixQueue     = 'Q'
	prefixPartition = 'P'
	prefixCreated   = 'C'
	prefixMeta      = 'M'
	prefixRecord    = 'R'
	prefixDedup     = 'D'
	prefixNext      = 'N'
)

var nextUIDKey = []byte{prefixNext, 'p'}

func appendName(b []byte, s string) []byte { return wire.AppendString(b, s) }

func queueKey(tenant, queue string) []byte {
	return appendName(appendName([]byte{prefixQueue}, tenant), queue)
}

// queuePrefix is the end of 'Q'/'P'/'C' keys shared by one queue.
func queuePrefix(prefix byte, tenant, queue string) []byte {
	return appendName(appendName([]byte{prefix}, tenant), queue)
}

func partitionKey(tenant, queue, partition string) []byte {
	return appendName(queuePrefix(prefixPartition, tenant, queue), partition)
}

func metaKeyOf(uid uint64) []byte { return binary.BigEndian.AppendUint64([]byte{prefixMeta}, uid) }

// uidValue is the value of a 'P' key, and the start of a 'C' key's.
func uidValue(uid uint64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uid) }

// createdValue is a 'C' key's value: the uid, then the partition's name.
func createdValue(uid uint64, name string) []byte { return append(uidValue(uid), name...) }

// decodeUID reads a 'P' key's value.
func decodeUID(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("%w: partition uid of %d bytes", ErrStorage, len(b))
	}
	return binary.BigEndian.Uint64(b), nil
}

// decodeCreated reads a 'C' key's value.
func decodeCreated(b []byte) (uid uint64, name string, err error) {
	if len(b) < 8 {
		return 0, "", fmt.Errorf("%w: created entry of %d bytes", ErrStorage, len(b))
	}
	return binary.BigEndian.Uint64(b), string(b[8:]), nil
}

func createdKey(tenant, queue string, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(queuePrefix(prefixCreated, tenant, queue), seq)
}

func recordKey(uid uint64, offset int64) []byte {
	b := binary.BigEndian.AppendUint64([]byte{prefixRecord}, uid)
	return binary.BigEndian.AppendUint64(b, uint64(offset))
}

func dedupKey(uid uint64, txid string) []byte {
	return append(binary.BigEndian.AppendUint64([]byte{prefixDedup}, uid), txid...)
}

// QueueWatchKey is the Watch key of a queue: notified when a push appends
// to any of its partitions, and by other families' appliers (consumer
// groups releasing a lease) that free messages of the queue.
func QueueWatchKey(shard uint64, tenant, queue string) string {
	return fmt.Sprintf("q/%d/%d:%s/%s", shard, len(tenant), tenant, queue)
}

// PartitionWatchKey is the Watch key of one partition by its names:
// notified when a push appends to it, so that a wait on one partition is
// not woken by pushes to the others.
func PartitionWatchKey(shard uint64, tenant, queue, partition string) string {
	return fmt.Sprintf("pn/%d/%d:%s/%d:%s/%s", shard, len(tenant), tenant, len(queue), queue, partition)
}

// watchKey is the Watch key of a partition: notified when it gains records
// or is trimmed.
func watchKey(shard uint64, uid uint64) string { return fmt.Sprintf("p/%d/%d", shard, uid) }

// partitionMeta is what the queue log keeps about one partition.
type partitionMeta struct {
	Seq        uint64   // creation order within its queue, from 1
	UID        uint64   // shard-wide id of the partition's records
	ID         [16]byte // its UUID, new per incarnation (derived from the log)
	NextOffset int64    // the high watermark: the offset the next record gets
	LogStart   int64    // the first offset not trimmed
	LastWrite  int64    // stamp of the last push that appended to it
	Created    int64    // stamp of the push that created it
	// DedupFrom is the first offset whose dedup entry may still live: the
	// records below it are out of the dedup window (or trimmed), and their
	// entries are deleted (DedupSweepOp).
	// INVARIANT: LogStart <= DedupFrom <= NextOffset, once a sweep or a
	// trim wrote the meta; a meta of version 1 reads it as LogStart.
	DedupFrom int64
}

// metaVersion starts the queue and partition metas and records; a
// partition meta of version 2 ends with DedupFrom.
const (
	metaVersion          = 1
	partitionMetaVersion = 2
)

func (m *partitionMeta) encode() []byte {
	b := []byte{partitionMetaVersion}
	b = binary.AppendUvarint(b, m.Seq)
	b = binary.AppendUvarint(b, m.UID)
	b = append(b, m.ID[:]...)
	b = binary.AppendVarint(b, m.NextOffset)
	b = binary.AppendVarint(b, m.LogStart)
	b = binary.AppendVarint(b, m.LastWrite)
	b = binary.AppendVarint(b, m.Created)
	return binary.AppendVarint(b, m.DedupFrom)
}

func decodePartitionMeta(b []byte) (partitionMeta, error) {
	var m partitionMeta
	if len(b) < 1 || (b[0] != metaVersion && b[0] != partitionMetaVersion) {
		return m, fmt.Errorf("%w: partition meta version", ErrStorage)
	}
	d := newDecoder(b[1:])
	m.Seq, m.UID = d.Uvarint(), d.Uvarint()
	if len(d.B) < 16 {
		return m, fmt.Errorf("%w: partition meta", ErrStorage)
	}
	copy(m.ID[:], d.B[:16])
	d.B = d.B[16:]
	m.NextOffset, m.LogStart, m.LastWrite, m.Created = d.Varint(), d.Varint(), d.Varint(), d.Varint()
	m.DedupFrom = m.LogStart
	if b[0] == partitionMetaVersion {
		m.DedupFrom = d.Varint()
	}
	if d.Err != nil || len(d.B) != 0 {
		return m, fmt.Errorf("%w: partition meta", ErrStorage)
	}
	return m, nil
}

// storedRecord is a record as the queue log stores it.
type storedRecord struct {
	Stamp       int64
	MsgID       [16]byte
	TxID        string
	TraceID     [16]byte // zero: none
	ProducerSub string   // "": none
	Payload     []byte
}

// The versions of a stored record. A record with neither a trace id nor
// a producer sub is version 1 (metaVersion); one with a trace id only is
// version 2, its 16 bytes after the transaction id; both byte for byte
// as an older broker wrote them. One with a producer sub is version 3:
//
//	3 | varint stamp | message id(16) | transactionId | flags |
//	[trace id(16), flags&1] | producer sub (a name, not empty) | payload
//
// flags has bit 1 (a trace id) and bit 2 (the sub, always set) only.
// Every encoding is the one encode gives: a version 3 record without a
// sub, a zero trace id or a flag beyond these is refused.
const (
	recordTraced   = 2
	recordProducer = 3
)

func (r *storedRecord) encode() []byte {
	b := make([]byte, 0, 1+10+16+2+len(r.TxID)+17+3+len(r.ProducerSub)+len(r.Payload))
	traced := r.TraceID != [16]byte{}
	switch {
	case r.ProducerSub != "":
		b = append(b, recordProducer)
	case traced:
		b = append(b, recordTraced)
	default:
		b = append(b, metaVersion)
	}
	b = binary.AppendVarint(b, r.Stamp)
	b = append(b, r.MsgID[:]...)
	b = appendName(b, r.TxID)
	if r.ProducerSub != "" {
		flags := byte(2)
		if traced {
			flags |= 1
		}
		b = append(b, flags)
	}
	if traced {
		b = append(b, r.TraceID[:]...)
	}
	if r.ProducerSub != "" {
		b = appendName(b, r.ProducerSub)
	}
	return append(b, r.Payload...)
}

// knownRecordVersion says whether v is a stored record's version.
func knownRecordVersion(v byte) bool {
	return v == metaVersion || v == recordTraced || v == recordProducer
}

func decodeRecord(b []byte) (storedRecord, error) {
	var r storedRecord
	if len(b) < 1 || !knownRecordVersion(b[0]) {
		return r, fmt.Errorf("%w: record version", ErrStorage)
	}
	d := newDecoder(b[1:])
	r.Stamp = d.Varint()
	if len(d.B) < 16 {
		return r, fmt.Errorf("%w: record", ErrStorage)
	}
	copy(r.MsgID[:], d.B[:16])
	d.B = d.B[16:]
	r.TxID = string(d.Bytes())
	if d.Err != nil {
		return r, fmt.Errorf("%w: record", ErrStorage)
	}
	traced := b[0] == recordTraced
	if b[0] == recordProducer {
		if len(d.B) < 1 || d.B[0]&^1 != 2 { // 2 or 3: the sub, and maybe a trace id
			return r, fmt.Errorf("%w: record flags", ErrStorage)
		}
		traced = d.B[0]&1 != 0
		d.B = d.B[1:]
	}
	if traced {
		if len(d.B) < 16 || [16]byte(d.B[:16]) == [16]byte{} {
			return r, fmt.Errorf("%w: record trace id", ErrStorage)
		}
		copy(r.TraceID[:], d.B[:16])
		d.B = d.B[16:]
	}
	if b[0] == recordProducer {
		r.ProducerSub = string(d.Bytes())
		if d.Err != nil || r.ProducerSub == "" {
			return r, fmt.Errorf("%w: record producer sub", ErrStorage)
		}
	}
	r.Payload = d.B
	return r, nil
}

// recordStamp reads only the stamp of an 'R' value, a stored record or a
// pointer.
func recordStamp(b []byte) (int64, error) {
	if len(b) > 0 && b[0] == recordInSegment {
		_, stamp, _, err := decodePtr(b)
		return stamp, err
	}
	if len(b) < 2 || !knownRecordVersion(b[0]) {
		return 0, fmt.Errorf("%w: record version", ErrStorage)
	}
	v, n := binary.Varint(b[1:])
	if n <= 0 {
		return 0, fmt.Errorf("%w: record stamp", ErrStorage)
	}
	return v, nil
}

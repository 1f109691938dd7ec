package storefmt

import (
	"encoding/binary"
	"fmt"
)

// PartitionMeta is what the queue log keeps about one partition.
type PartitionMeta struct {
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

// MetaVersion starts the queue and partition metas and records; a
// partition meta of version 2 ends with DedupFrom.
const (
	MetaVersion          = 1
	PartitionMetaVersion = 2
)

// Encode is the meta's stored value (version 2).
func (m *PartitionMeta) Encode() []byte {
	b := []byte{PartitionMetaVersion}
	b = binary.AppendUvarint(b, m.Seq)
	b = binary.AppendUvarint(b, m.UID)
	b = append(b, m.ID[:]...)
	b = binary.AppendVarint(b, m.NextOffset)
	b = binary.AppendVarint(b, m.LogStart)
	b = binary.AppendVarint(b, m.LastWrite)
	b = binary.AppendVarint(b, m.Created)
	return binary.AppendVarint(b, m.DedupFrom)
}

// DecodePartitionMeta reads an 'M' value of either version.
func DecodePartitionMeta(b []byte) (PartitionMeta, error) {
	var m PartitionMeta
	if len(b) < 1 || (b[0] != MetaVersion && b[0] != PartitionMetaVersion) {
		return m, fmt.Errorf("%w: partition meta version", ErrStorage)
	}
	d := decoder(b[1:])
	m.Seq, m.UID = d.Uvarint(), d.Uvarint()
	if len(d.B) < 16 {
		return m, fmt.Errorf("%w: partition meta", ErrStorage)
	}
	copy(m.ID[:], d.B[:16])
	d.B = d.B[16:]
	m.NextOffset, m.LogStart, m.LastWrite, m.Created = d.Varint(), d.Varint(), d.Varint(), d.Varint()
	m.DedupFrom = m.LogStart
	if b[0] == PartitionMetaVersion {
		m.DedupFrom = d.Varint()
	}
	if d.Err != nil || len(d.B) != 0 {
		return m, fmt.Errorf("%w: partition meta", ErrStorage)
	}
	return m, nil
}

// LoadMeta reads the meta of partition uid, which must exist, through get
// (a Txn's or a View's Get).
func LoadMeta(get func([]byte) ([]byte, bool, error), uid uint64) (PartitionMeta, error) {
	b, ok, err := get(MetaKey(uid))
	if err != nil {
		return PartitionMeta{}, err
	}
	if !ok {
		return PartitionMeta{}, fmt.Errorf("%w: partition %d has no meta", ErrStorage, uid)
	}
	return DecodePartitionMeta(b)
}

// QueueMeta is what the queue log keeps about one queue (its 'Q' value).
type QueueMeta struct {
	Created    int64
	Partitions uint64 // partitions created so far: the last one's Seq
	Options    []byte // a JSON object
}

// Encode is the meta's stored value.
func (q *QueueMeta) Encode() []byte {
	b := []byte{MetaVersion}
	b = binary.AppendVarint(b, q.Created)
	b = binary.AppendUvarint(b, q.Partitions)
	return append(b, q.Options...)
}

// DecodeQueueMeta reads a 'Q' value.
func DecodeQueueMeta(b []byte) (QueueMeta, error) {
	var q QueueMeta
	if len(b) == 0 || b[0] != MetaVersion {
		return q, fmt.Errorf("%w: queue meta version", ErrStorage)
	}
	d := decoder(b[1:])
	q.Created, q.Partitions = d.Varint(), d.Uvarint()
	if d.Err != nil {
		return q, fmt.Errorf("%w: queue meta", ErrStorage)
	}
	q.Options = d.B
	return q, nil
}

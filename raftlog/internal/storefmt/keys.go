package storefmt

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
// The first bytes of the queue log's keys.
const (
	PrefixQueue     = 'Q'
	PrefixPartition = 'P'
	PrefixCreated   = 'C'
	PrefixMeta      = 'M'
	PrefixRecord    = 'R'
	PrefixDedup     = 'D'
	PrefixNext      = 'N'
)

// NextUIDKey holds the next partition uid.
var NextUIDKey = []byte{PrefixNext, 'p'}

func appendName(b []byte, s string) []byte { return wire.AppendString(b, s) }

// QueueKey is a queue's 'Q' key.
func QueueKey(tenant, queue string) []byte {
	return appendName(appendName([]byte{PrefixQueue}, tenant), queue)
}

// QueuePrefix is the end of 'Q'/'P'/'C' keys shared by one queue.
func QueuePrefix(prefix byte, tenant, queue string) []byte {
	return appendName(appendName([]byte{prefix}, tenant), queue)
}

// PartitionKey is a partition's 'P' key, by its names.
func PartitionKey(tenant, queue, partition string) []byte {
	return appendName(QueuePrefix(PrefixPartition, tenant, queue), partition)
}

// MetaKey is the 'M' key of partition uid.
func MetaKey(uid uint64) []byte { return binary.BigEndian.AppendUint64([]byte{PrefixMeta}, uid) }

// UIDValue is the value of a 'P' key, and the start of a 'C' key's.
func UIDValue(uid uint64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uid) }

// CreatedValue is a 'C' key's value: the uid, then the partition's name.
func CreatedValue(uid uint64, name string) []byte { return append(UIDValue(uid), name...) }

// DecodeUID reads a 'P' key's value.
func DecodeUID(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("%w: partition uid of %d bytes", ErrStorage, len(b))
	}
	return binary.BigEndian.Uint64(b), nil
}

// DecodeCreated reads a 'C' key's value.
func DecodeCreated(b []byte) (uid uint64, name string, err error) {
	if len(b) < 8 {
		return 0, "", fmt.Errorf("%w: created entry of %d bytes", ErrStorage, len(b))
	}
	return binary.BigEndian.Uint64(b), string(b[8:]), nil
}

// CreatedKey is the 'C' key of a queue's partition number seq.
func CreatedKey(tenant, queue string, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(QueuePrefix(PrefixCreated, tenant, queue), seq)
}

// RecordKey is the 'R' key of partition uid's record at offset.
func RecordKey(uid uint64, offset int64) []byte {
	b := binary.BigEndian.AppendUint64([]byte{PrefixRecord}, uid)
	return binary.BigEndian.AppendUint64(b, uint64(offset))
}

// DedupKey is the 'D' key of transaction id txid in partition uid.
func DedupKey(uid uint64, txid string) []byte {
	return append(binary.BigEndian.AppendUint64([]byte{PrefixDedup}, uid), txid...)
}

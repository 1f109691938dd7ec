package consume

import (
	"encoding/binary"

	"github.com/queen-mq/queen-go/raftlog/wire"
)

// The consuming family's keys in the shard's store. raftlog keeps 0x00 and
// 'Q','P','C','R','D','N'; kvstore 'K','k'; these bytes are ours. Names are
// length-prefixed, so none can run into the next field.
//
//	'G' tenant queue group partition      → a group's state on a partition (gpState)
//	'g' tenant queue group                → the group's subscription (groupMeta)
//	'L' leaseID                           → the partitions a lease holds (leaseRow)
//	'U' uid(8)                            → tenant, queue, partition of a partition id
//	'X' tenant queue group partition off(8) → a dead letter (DeadLetter)
//	'x' tenant id                         → the 'X' key of dead letter id
//	'O' tenant queue group partition      → a position's metadata (positions.go)
//	'Z' tenant queue partition off(8)     → a deleted message: the stamp of its delete (deleted.go)
//	'z' tenant queue partition            → how many of the partition's messages are deleted
const (
	prefixGP       = 'G'
	prefixGroup    = 'g'
	prefixLease    = 'L'
	prefixUID      = 'U'
	prefixLetter   = 'X'
	prefixLetterID = 'x'
	prefixMetadata = 'O'
	prefixDeleted  = 'Z'
	prefixDelCount = 'z'
)

func metadataKey(tenant, queue, group, partition string) []byte {
	return name(name(name(name([]byte{prefixMetadata}, tenant), queue), group), partition)
}

func name(b []byte, s string) []byte { return wire.AppendString(b, s) }

func groupKey(tenant, queue, group string) []byte {
	return name(name(name([]byte{prefixGroup}, tenant), queue), group)
}

func gpKey(tenant, queue, group, partition string) []byte {
	return name(name(name(name([]byte{prefixGP}, tenant), queue), group), partition)
}

func leaseKey(id string) []byte { return append([]byte{prefixLease}, id...) }

func uidKey(uid uint64) []byte { return binary.BigEndian.AppendUint64([]byte{prefixUID}, uid) }

// letterPrefix is the key prefix of (tenant, queue, group)'s dead letters,
// or of a queue's when group is "" and all is true.
func letterPrefix(tenant, queue string) []byte {
	return name(name([]byte{prefixLetter}, tenant), queue)
}

func letterKey(tenant, queue, group, partition string, offset int64) []byte {
	b := name(name(letterPrefix(tenant, queue), group), partition)
	return binary.BigEndian.AppendUint64(b, uint64(offset))
}

func letterIDKey(tenant, id string) []byte { return name(name([]byte{prefixLetterID}, tenant), id) }

// gpPrefix is the key prefix of a group's states on a queue's partitions.
func gpPrefix(tenant, queue, group string) []byte {
	return name(name(name([]byte{prefixGP}, tenant), queue), group)
}

// groupsPrefix is the key prefix of a tenant's group subscriptions.
func groupsPrefix(tenant string) []byte { return name([]byte{prefixGroup}, tenant) }

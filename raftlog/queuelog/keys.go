package queuelog

import (
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

func appendName(b []byte, s string) []byte { return wire.AppendString(b, s) }

// decoder reads an op or an answer; its failures wrap
// raftlog.ErrCorruptEntry.
type decoder struct{ wire.Decoder }

func newDecoder(b []byte) decoder { return decoder{wire.NewDecoder(b, raftlog.ErrCorruptEntry)} }

// firstUseRef reads an index into a list of n names that a push op refers
// to in the order it lists them: below n, and at most *used (the names
// referred to so far), which it counts on when it refers to the next one.
// It fails as what otherwise.
func (d *decoder) firstUseRef(n int, used *int, what string) uint64 {
	i := d.Uvarint()
	switch {
	case i > uint64(*used) || i >= uint64(n):
		d.Fail(what)
	case i == uint64(*used):
		*used++
	}
	return i
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

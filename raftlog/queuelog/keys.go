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

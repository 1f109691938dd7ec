// Package consume is the consuming half of the broker (API.md §2, §3, §8)
// as a family of the replicated state machine: pop, ack and lease
// extension, consumer groups with exclusive partition leases, retries, the
// dead-letter queue, the consuming part of transactions (TxnOp: required
// leases and acks that must all succeed, beside raftlog's strict push and
// kvstore's call in one command; PositionOp: a transaction's positions[],
// a group's place on a partition set with the rest), and group
// administration (seek, delete, DLQ replay and purge). The timers family
// files the timers that cannot fire in the dead-letter group __timer__
// (FileTimer). Its ops (kind OpConsume) are applied by every
// node; Consumer proposes them and long-polls.
//
// # What it owns
//
// Per (tenant, queue, group, partition) a gpState: the cursor (every
// offset below it is settled), the lease that holds the partition, and
// what is known of the offsets at or past the cursor (deliveries, failed
// acks, acks out of order, retry delays). Per group its subscription (the
// stamp of its first pop, mode new or all, subscriptionFrom). Per lease the
// partitions it holds, for extension. Per partition id the partition it
// names, for acks. Per dead letter a copy of the record and why it was
// filed. Per partition the offsets deleted for every consumer
// (DeleteMessageOp). Records themselves stay in raftlog's queue log, read
// through Txn.View. A group that conflates (its first pop asked) is
// delivered per partition only the newest message, the cursor moved to it.
//
// # Shape
//
// The family has the shape queen/internal/family gives every family: an
// op is one of PopOp, AckOp, ExtendOp, TxnOp, SeekOp, DeleteOp, ReplayOp,
// PurgeOp, PositionOp, SubscriptionOp, DropQueueOp and DeleteMessageOp
// (ops.go: family.DecodeOp reads the version and the kind, readOp the op;
// checkNames the names it carries), encoded with family.Encoder; each
// op's Apply applies it on the family's state of the entry (family.Op,
// through family.Applier, which Appliers registers under OpConsume); the
// Consumer proposes them (family.Propose for the administration calls
// that answer a count).
//
// # Invariants
//
//   - The op codec is strict (family.Decoder): an op that decodes encodes
//     back to the same bytes, one that does not is refused
//     (FuzzDecodeOp); stored state that does not decode halts the node.
//     Rows keep reading what older brokers wrote (a lease row without its
//     length, a group row without its conflation flag).
//   - A partition is leased to one consumer of a group at a time: a pop
//     claims it only when no lease holds it at the entry's stamp, and a
//     lease holds it until its end plus the clock-skew margin
//     (QUEEN_RAFT_MAX_CLOCK_SKEW_MS). Stamps are the broker clock, so a new
//     leader judges the same leases the same way, within that skew.
//   - Messages come in offset order with no skips: a pop delivers from
//     the cursor on, passes only offsets acked out of order or dropped as
//     too old (maxWaitTimeSeconds), and stops at a message that waits
//     (retryDelay, delayedProcessing) instead of passing it.
//   - An ack is an offset commit per group and partition: a completed ack
//     of offset N settles every message at or below N that its lease
//     holds. In one call (an ack batch, a transaction's acks), a nack
//     (failed, retry) of N clamps the commit below N: a completed ack of N
//     or later in the call is refused, and the lease is released when the
//     call ends, so N and everything after it are delivered again at once.
//   - No message is settled twice and none is delivered again after a
//     successful ack: a completed ack of a committed message (below the
//     cursor, or acked) is a noop (AckAnswer.Noop), a nack of one is
//     refused; a fenced ack (leaseId) of an unsettled message must name
//     the lease that holds the partition and a message that lease holds.
//     A transaction's ack of a message committed before its entry is
//     refused: its input was consumed already.
//   - An ack names its message by transactionId: found through the queue
//     log's dedup index (one key), else among the delivered messages at or
//     past the cursor; neither, it is unresolvable.
//   - A failed ack spends one retry of retryLimit (a retry ack spends
//     none); past it the message is filed in the dead-letter queue
//     (deadLetterQueue and dlqAfterMaxRetries) or dropped. An expired
//     lease makes its unsettled messages deliverable again, their
//     deliveryAttempt one higher.
//   - Apply is deterministic: it reads only the op, the entry's stamp and
//     the state; the lease id and the start of a queue-wide pop's walk are
//     chosen by the proposer and travel in the op.
//
// # Usage
//
//	shard, _ := host.StartShard(id, consume.Appliers()) // with the other families'
//	c := &consume.Consumer{Shard: shard, Skew: 500 * time.Millisecond}
//	res, _ := c.Pop(ctx, consume.PopRequest{Tenant: t, Queue: "jobs", Group: "workers",
//		Batch: 10, MaxPartitions: 1, Wait: 30 * time.Second})
//	for _, p := range res.Parts {
//		for _, m := range p.Messages {
//			c.Ack(ctx, t, []consume.AckItem{{TransactionID: m.TransactionID,
//				PartitionUID: p.UID, Group: "workers", LeaseID: res.LeaseID}})
//		}
//	}
package consume

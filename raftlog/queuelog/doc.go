// Package queuelog is Queen's queue log: ordered partitions of records,
// one family of raftlog's replicated state machine beside the KV store
// and the consumer families. Its ops apply inside raftlog's apply, in one
// batch with the other ops of their entry; its reads run over a
// raftlog.View of a node's applied state.
//
// # What it owns
//
//   - The ops and their codec (ops.go, ops_retain.go, delete.go): push
//     (offsets from 0 without gaps, payload bytes kept exactly,
//     deduplication by transactionId within the queue's window; a Strict
//     item's duplicate rolls its whole entry back, for transactions; an
//     item past the queue's maxSize answers Full, judged at apply, and a
//     Strict one is not bounded by it), configure (queue options), trim
//     (retention, replicated so every node deletes the same records),
//     dedup sweep (the dedup entries of records out of their window,
//     deleted by a leader-proposed op that walks a partition from its
//     DedupFrom, so they live as long as the window and no longer) and
//     delete queue. Op kinds OpPush to OpDeleteQueue (1 to 5) are part of
//     the log's format. A push op of version 1 (names with every item)
//     still decodes: the log may hold entries of an older broker.
//   - The appliers (apply.go, retain.go, delete.go), which Appliers
//     returns by op kind for raftlog.Host.StartShard: raftlog registers
//     none of them itself (it may not import this package, which imports
//     it), so whoever builds a shard passes them with its other families'
//     (the broker's assembly, raftlogtest's clusters).
//   - The reads (read.go): records by offset (ReadRecords), the first
//     offset at a time (OffsetForTime), a partition (Partition),
//     partitions changed since a time (PartitionsChanged, EachPartition),
//     queues (Queue, Queues, AllQueues) and the dedup index
//     (TransactionOffset), each a function of a *raftlog.View; and the
//     shard calls (shard.go): Push, Configure, Trim, DedupSweep,
//     DeleteQueue and WaitRecords for long polls. Other families read the
//     queue log inside their own apply through Txn.View (queen's consumer
//     groups do). QueueWatchKey wakes watchers of a queue on every push,
//     PartitionWatchKey those of one partition.
//   - The keys and stored values: a partition's names are stored once,
//     when it is created: its meta, records and dedup entries are keyed
//     by its numeric uid, and a push op names each queue and partition
//     once whatever its count of items. The layouts themselves live in
//     raftlog/internal/storefmt, which the core's storage reads too: the
//     core keeps records ('R' keys) in its segments and streams them in
//     snapshots, caches the metadata ('Q', 'P', 'M'), filters the dedup
//     keys ('D') in memory, upgrades older stores and collects segments
//     below every partition's log start. A record keeps, beside its
//     payload, the producer's trace id and the subject of the credential
//     that pushed it (PushItem.ProducerSub); each is written only when
//     present, so that a record without them has the bytes an older
//     broker wrote (record versions 1 to 3), and every version stays
//     readable.
//
// # Invariants
//
// Apply is deterministic, as raftlog requires of every applier: a push
// reads nothing but its op, its ApplyInfo and the state through its Txn;
// the partition ids it derives come from the log position (shard, index,
// op, item, nested number), never from a clock or randomness; maps are
// looked up, never iterated into the store or an answer.
//
// Names and numbers: the push, configure, trim and dedup sweep appliers
// check the names an op carries against package contract's table (a
// follower trusts nothing its proposer checked): a push or configure of a
// name the contract refuses is refused. A delete queue op's name is not
// checked: no queue of a name the contract refuses was ever stored, so it
// finds nothing. Stored queue options are read within their ranges, so no
// time arithmetic of apply can wrap.
//
// Offsets: a partition's offsets run from 0 without gaps; LogStart <=
// DedupFrom <= NextOffset once a sweep or a trim wrote its meta. Records
// of a push get their entry's stamp, and stamps never decrease along a
// partition, so OffsetForTime searches by halves. A deleted queue's
// partitions come back with new uids and ids, their offsets from 0.
//
// Deduplication: a transactionId seen within the queue's window answers
// the original's offset and message id (Duplicate), on every node alike;
// dedup entries are deleted by trims and sweeps, never by a node alone.
//
// # Usage
//
//	appliers := queuelog.Appliers()
//	maps.Copy(appliers, kvstore.Appliers())
//	shard, err := host.StartShard(1, appliers)
//	answers, stamp, err := queuelog.Push(ctx, shard, queuelog.PushOp{Tenant: t, Items: []queuelog.PushItem{
//		{Queue: "orders", Partition: "cust-1", TransactionID: id, MessageID: mid, Dedup: true, Payload: body},
//	}})
//	got, err := shard.LocalRead(func(v *raftlog.View) (any, error) {
//		return queuelog.ReadRecords(v, t, "orders", "cust-1", 0, queuelog.ReadLimits{MaxRecords: 100})
//	})
package queuelog

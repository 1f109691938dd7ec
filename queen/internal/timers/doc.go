// Package timers is the broker's timers (API.md §7) as a family of the
// replicated state machine (kind OpTimers): a Call schedules, reschedules
// or cancels timers of a tenant's queues; a FireOp, proposed by the
// leader's Firer when its applied state holds a due timer, fires them.
//
// # What it owns
//
// Per (tenant, queue, timerKey) one pending timer: the message it will
// become (partition, txn, message id, payload, sealed or not), the stamp
// it was scheduled at, its deliverAt, when it is tried next, and the
// failed fires so far; beside it a due index ordered by the next try.
// Peek, List, Count and NextDue read them through a raftlog.View. A fired
// timer leaves no row (no tombstone): the authority on whether it fired
// is its queue, where its txn is the record's transactionId.
//
// # Shape
//
// The family has the shape queen/internal/family gives every family: an
// op is a Call or a FireOp (ops.go: family.DecodeOp reads the version and
// the tag, readOp the op, checkOp the contract), encoded with
// family.Encoder; each op's Apply applies it on the family's state of the
// entry (family.Op, through family.Applier, which Appliers registers
// under OpTimers); Timers.Do refuses what Check refuses before proposing
// (family.Call, Propose), as apply checks again.
//
// # Invariants
//
//   - The codec is strict (family.Decoder): an op or a timer row that
//     decodes encodes back to the same bytes; an op that does not decode
//     is refused, a row that does not halts the node (FuzzDecodeOp,
//     FuzzDecodeStored).
//   - Judged on the broker clock: deliverAt is the schedule's entry stamp
//     plus the delay (a past delay: the stamp), and a fire entry fires
//     only timers due at its own stamp, so on the broker clock no timer
//     fires before its delay, whatever the clock of the node that
//     proposed the fire; in real time, not earlier than the nodes'
//     clocks differ (QUEEN_RAFT_MAX_CLOCK_SKEW_MS).
//   - At most once: a fire is a push of one record through the queue
//     log's applier (raftlog.Txn.Apply; deduplicated by the timer's txn)
//     and the timer's deletion, in one entry. A fire proposed twice (a
//     leader change) finds nothing due the second time.
//   - A fire and a cancel cannot race: whichever entry applies first
//     wins, so a cancel that answered cancelled removed a timer that had
//     not fired and never will.
//   - A schedule is an upsert: a new timer under an old name (attempts
//     from 0, the new txn, payload and delay); the old one never fires.
//   - A failed fire is tried again after 1 s, doubling up to 60 s. A full
//     queue (maxSize) is waited for as long as it takes; the MaxPermanent-th
//     failure for good (the push refused, the queue's encryption changed
//     since the schedule) files the timer in the queue's dead-letter group
//     __timer__ (consume.FileTimer) with the last error.
//   - A fire entry fires at most FireLimit timers and FireBytes of
//     payload (one at least), so its writes stay bounded.
//   - Apply is deterministic: it reads the op, the entry's stamp and the
//     state; message ids and missing txns are minted by the proposer, and
//     payloads are sealed there.
//
// # Usage
//
//	shard, _ := host.StartShard(id, appliers) // the queue log's, consume's, timers' and the others'
//	go (&timers.Firer{Shard: shard, Node: nodeID, Tick: 50 * time.Millisecond, Log: log}).Run(ctx)
//	t := &timers.Timers{Shard: shard}
//	got, _ := t.Do(ctx, timers.Call{Tenant: tenant, Ops: []timers.Op{{Kind: timers.KindSchedule,
//		Queue: "orders", Partition: "Default", Key: "order:9f1:expire", Txn: txn, MessageID: id,
//		DelayMicros: 30 * 60e6, Payload: []byte(`{"orderId":"9f1"}`)}}})
//	_ = got[0].DeliverAt
package timers

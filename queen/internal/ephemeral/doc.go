// Package ephemeral is one node's ephemeral queues: messages held in this
// process's memory, never written to the raft log nor to disk, and lost
// by design when the process stops, crashes or restarts (guarantees.md:
// "Ephemeral queues keep their messages in memory").
//
// # What it owns
//
// The store (Store) behind the /api/v1/ephemeral/* routes: per tenant
// and queue, one ring of messages per partition in push order, and per
// consumer group a cursor over each ring, the group's leases and the
// messages given back to it. Push, pop, ack, configure, reset, delete,
// the gauges (Queues, Depth), the node's memory cap, TTLs, lease ends and
// retry limits, and the metrics queen_ephemeral_*.
//
// Each node has its own store and knows nothing of the others': a
// follower serves ephemeral calls from its own memory exactly as the
// leader does, raft is never involved, and the calls keep working while
// the cluster has no leader. A message pushed through one node is popped
// through that node only; a client with several nodes' URLs must send a
// queue's calls to one node. The options a configure sets live in the same
// memory: a restarted node has no ephemeral queue until a call makes one.
//
// # Invariants
//
//   - Memory is bounded: what every queue of the node holds, each message
//     counted as its payload plus MessageOverhead bytes, never exceeds
//     Options.MaxBytes (QUEEN_EPHEMERAL_MAX_BYTES). A push is all or
//     nothing: one that could never fit is a *TooLargeError (413), one
//     that does not fit now a *FullError (429).
//   - Per partition and group, messages are delivered oldest first: those
//     given back (a nack, an expired lease) before new ones.
//   - Every group has its own cursor: one group's consumers share the
//     messages (each delivered to one of them at a time), another group
//     gets every message again. A group reads a partition from the oldest
//     message it holds when the group first reads it: there is no
//     history, no subscription mode and no DLQ.
//   - A message stays until every group that has read its partition has
//     settled it (ack completed, commit at delivery, or its retryLimit
//     spent), or its TTL, its queue's drop_oldest bound or a reset drops
//     it. A message pushed before any group read the partition waits for
//     the first one.
//   - Delivery is at least once while the store lives: an unacked message
//     comes back when its lease ends, with attempts+1, up to 1+retryLimit
//     deliveries per group; then it is dropped and counted. AutoAck is at
//     most once.
//   - A message id names one delivery (store incarnation, partition,
//     sequence, attempt): an ack from before a restart, a reset or a
//     delete answers stale, and one of an earlier delivery of a message
//     delivered again since answers unknown, so a late ack never settles
//     another consumer's delivery.
//   - Deterministic where it matters: every judgement (TTL, lease end,
//     idleness) reads the injected clock Options.Now; the order of
//     delivery, of drops and of a partition-less pop's partitions (round
//     robin per group, in creation order) follows from sequence numbers,
//     never from map order. Only the waiting of a long poll uses real
//     timers, and only to wake up and look again.
//   - No call holds the store's mutex while it waits.
//
// # Usage
//
//	s, _ := ephemeral.New(ephemeral.Options{MaxBytes: cfg.EphemeralMaxBytes, Logger: log, Registerer: reg})
//	go s.Run(ctx, time.Second) // TTLs, lease ends, idle queues
//	s.Push(ephemeral.PushRequest{Tenant: t, Queue: "presence", Payloads: [][]byte{[]byte(`{"user":"a"}`)}})
//	msgs := s.Pop(ctx, ephemeral.PopRequest{Tenant: t, Queue: "presence", Batch: 10, Wait: 30 * time.Second})
//	outcomes := s.Ack(ephemeral.AckRequest{Tenant: t, Queue: "presence", Acks: []ephemeral.Ack{{ID: msgs[0].ID}}})
//	// outcomes[0] == ephemeral.Acked
package ephemeral

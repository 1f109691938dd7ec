// Package streams is the server side of the product's streaming SDK
// (queen-mq's queen/streams: map, filter, keyBy, windows, reduce, gates,
// sinks into another queue) as a family of the replicated state machine.
// The SDK runs a query's operators in the user's process: it pops the
// source queue as any consumer does, and keeps its state and progress in
// the broker through POST /streams/v1/queries, /streams/v1/state/get and
// /streams/v1/cycle (httpd's Streamer, served by package broker).
//
// # What it owns
//
// Per tenant and query name a registration (Query: its id, source and
// sink queue, config hash, consumer group, counters of cycles, resets
// and its state's rows and bytes); per registration id the name it
// belongs to; per (query id, source partition, key) a state row whose
// value is the SDK's JSON, byte for byte. The ack of a cycle is
// consume's (TxnOp, which releases the lease when asked), its outputs the
// queue log's (a strict push); this family adds the state writes to the
// same command (CycleOp), so a cycle is one raft entry.
//
// # Shape
//
// The family has the shape queen/internal/family gives every family: an
// op is a RegisterOp, CycleOp, DeleteOp or DropSourceOp (ops.go:
// family.DecodeOp reads the version and the kind, readOp the op, check
// the contract), encoded with family.Encoder; each op's Apply applies it
// on the family's state of the entry (family.Op, through family.Applier,
// which Appliers registers under OpStreams); Streams.Register and Delete
// refuse what the checks refuse before proposing (family.Propose), as
// apply checks again.
//
// # Invariants
//
//   - The codec is strict (family.Decoder): an op that decodes passes
//     check and encodes back to the same bytes, one that does not is
//     refused; a query row that does not decode halts the node
//     (FuzzDecodeOp, FuzzDecodeAnswers).
//   - A cycle applies all or nothing: its ack, its state writes and its
//     pushes are one command, and any op of it refused rolls every other
//     back.
//   - Effects are exactly once. A cycle's ack must name a message its
//     lease still holds and that was not committed before the cycle
//     (consume's rule for a transaction's acks): a worker whose lease
//     expired or moved, or a retry of a cycle that applied, changes
//     nothing. The ack settles what the worker consumed, its lease's
//     messages up to the named one in the SDK's order (millisecond, then
//     message id: consume.TxnOp.Counts), not the offsets below the named
//     one, which can differ. A cycle
//     without an ack (the SDK's idle flush) is fenced by its deletes: a
//     delete of a row that is not there refuses the whole cycle, so a
//     retried flush, or a second worker's flush of the same window, emits
//     nothing twice.
//
// # Where the fences stop
//
//   - A delete proves the row is there, not that it is the row the flush
//     read: a flush racing another worker's cycle that rewrote the window
//     in between (the SDK sends no version of what it read) is not
//     fenced. Within one worker the SDK's own lock orders them.
//   - A cycle with neither an ack nor a delete has no fence: its retry
//     pushes again (the SDK sends none such).
//   - An output's own transactionId refuses a repeat only while the sink
//     queue deduplicates (a dedup window above 0).
//   - release_lease false keeps the lease only while the ack leaves some
//     of its messages unsettled: a lease with nothing left is released.
//   - A registration's id is minted from the tenant, the name and the
//     raft index of the entry that registered it: a reset (which wipes
//     the state) or a delete retires it for good, and cycles or reads
//     naming a retired id are refused, so a worker of the old operator
//     chain cannot write into the new one's state.
//   - Rows and Bytes of a query are exactly what its rows hold: every
//     write that changes a row changes them in the same entry; a reset, a
//     delete and the deletion of the source queue (DropSourceOp, in the
//     queue's delete command) wipe the rows with one range delete.
//   - Apply is deterministic: it reads the op, the entry's stamp and index
//     and the rows; an output's message id and transactionId are minted
//     by the proposer and travel in the op.
//
// # Decisions the SDK left open
//
//   - reset=true always wipes the state and mints a new id, whatever the
//     hash: the user asked for it.
//   - The state read (state/get) is linearizable, through any node: a
//     worker reads every cycle answered before it, or its sums would be
//     wrong after a leader change.
//   - ripe_at_or_before picks the rows whose value is an object with a
//     numeric windowEnd at or before it (the SDK's window rows), the rows
//     its idle flush may close.
//   - A refused cycle is 200 {"success":false,"reason":…}, as a rolled
//     back transaction is; the SDK raises it, reports it, and pops again.
//
// # Usage
//
//	shard, _ := host.StartShard(id, appliers) // with consume's and the queue log's
//	s := &streams.Streams{Shard: shard}
//	reg, _ := s.Register(ctx, streams.RegisterOp{Tenant: t, Name: "sums",
//		Source: "events", Sink: "totals", ConfigHash: hash})
//	cy := streams.CycleOp{Tenant: t, ID: reg.Query.ID, Partition: "7", Group: "streams.sums",
//		Ops: []streams.StateOp{{Kind: streams.StateUpsert, Key: "k", Value: []byte(`{"acc":3}`)}}}
//	shard.Propose(ctx, raftlog.Command{Ops: []raftlog.Op{ackOp, cy.Op(), pushOp}})
package streams

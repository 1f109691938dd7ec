// Package raftlog is Queen's replicated log: a dragonboat v4 raft host
// whose shards each run one on-disk state machine over Pebble v2, and the
// broker clock that stamps every entry. The families of ops the state
// machine applies live beside it: the queue log in raftlog/queuelog, the
// KV store in kvstore, the consumer families in queen/internal.
//
// # What it owns
//
//   - Host (host.go): one node's dragonboat NodeHost, started from a Config
//     (node id, raft address, data directory, initial members), and the
//     shards it runs. Every API names its shard: one shard holds every
//     queue today, and queues will later hash onto several. Config.LogDB
//     sizes dragonboat's raft log store (logdb.go): tiny by default, about
//     5 MB of disk on a fresh node; small, medium and large for more load.
//   - The entry codec (codec.go): a Command is the proposer's clock and one
//     or more Ops, in a versioned binary encoding; a Result is what applying
//     it answered.
//   - The state machine (sm.go, apply.go, txn.go): Update decodes each
//     entry, stamps it, and hands each op to the Applier registered for its
//     kind, through a Txn that makes the entry all or nothing; all entries
//     of one Update and the applied index go to Pebble in one batch.
//   - The appliers a shard runs, by op kind: StartShard takes them all
//     (queuelog.Appliers for the queue log's kinds 1 to 5, and every other
//     family's) beside raftlog's own node-status op; raftlog registers
//     no family itself. A family reads and writes through Txn and View,
//     and the storage classes below keep its keys by their first byte.
//     The store's format (store_format.go) is upgraded in place when an
//     older one opens.
//   - The storage classes of key prefixes, whose layouts
//     raftlog/internal/storefmt holds for the core and the queue log
//     alike. The record store (segments.go, record_ptr.go,
//     segments_gc.go): the bytes of a record (an 'R' key) are appended
//     once to a segment file of its shard, and Pebble keeps a pointer to
//     them (with the record's stamp and transaction id) beside the indexes
//     and metadata: no LSM rewrite of payloads; View.RecordBytes reads
//     them back. A segment below every partition's first live record is
//     removed by Sync. Records a store wrote before segments stay in
//     Pebble and read as before. The metadata cache (metacache.go) keeps
//     the 'Q', 'P' and 'M' keys in memory as the Update batch holds them;
//     the dedup filter (below) the 'D' keys, which Txn.GetDedup looks up.
//   - Snapshots (sm.go): a Pebble snapshot streamed key by key, records
//     inline (the logical state, whatever segments the node keeps), and
//     the whole state replaced from one in a single batch, its records
//     appended to the segments, then flushed.
//   - The storage gate (disk.go, disk_status.go): with Config.Disk set,
//     each node polls its data directory's file system and, crossing its
//     high mark, proposes a node-status op that puts it in the shard's
//     replicated set of full nodes (falling below its low mark, one that
//     takes it out). While the set is not empty, or this node's own disk
//     is full, Propose refuses a command holding an op that may grow the
//     store (StorageGrower) with ErrStorageFull, before proposing it.
//     Shard.Storage says what the gate knows.
//
// raftlog imports neither chi, the AWS SDK nor s3sink (a test enforces it).
//
// # The broker clock
//
// The proposer writes its wall clock (µs) into the Command; apply stamps
// the entry max(Clock, previous stamp + 1). Every record of a push gets its
// entry's stamp. SafeTime is the stamp of the last entry the node applied,
// so every entry it has not applied yet will be stamped above it: a window
// that closes below safeTime can never gain a record. TTLs, dedup windows,
// retention and (later) leases are judged on stamps, never on a node's own
// clock. The leader proposes an empty Command when the shard was idle for
// Config.TickInterval, so safeTime keeps moving.
//
// # Invariants
//
// Apply is deterministic. Update reads nothing but the entry and the state
// before it: no time.Now, no randomness, no map iteration that reaches the
// store or an answer. Every node applies the same entries in the same order
// and must end in the same state, byte for byte; a node that computed
// anything else would answer differently from its peers and, after a
// leader change, hand out offsets or versions its peers already gave away.
// Appliers are held to the same rule (see Applier), and a test applies one
// recorded log to two state machines and compares their whole stores.
//
// Names and numbers. Every applier checks the names an op carries against
// package contract's table (a follower trusts nothing its proposer
// checked): a push or configure of a name the contract refuses is
// refused, and stored queue options are read within their ranges, so no
// time arithmetic of apply can wrap.
//
// An entry is all or nothing: its ops write into an overlay (Txn) that
// reaches the Update's batch only when every op succeeded. An op that
// aborts (Abort) or fails rolls the entry back and is answered in the
// Result; only a storage error stops the node.
//
// Durability: a write is answered once its entry is committed, written and
// fsynced on a majority (dragonboat's log), and applied here. The raft log
// is the state machine's only log: Pebble writes no WAL, and its state is
// durable once a memtable is flushed (by Sync, which dragonboat calls
// before it drops log entries a snapshot covers, by Close, or when a
// memtable fills). Every flush fsyncs the active segment first, so a
// durable pointer never outruns its bytes. A crash loses nothing
// answered: Open returns the index of the last durable state, cuts the
// active segment back to the length that state recorded, and dragonboat
// replays its log from there, which appends the same records again.
//
// The dedup filter (dedup_filter.go): a push looks its transactionId up
// only when an in-memory Bloom filter over the store's dedup keys cannot
// rule it out, so a new id costs no Pebble read. A "no" is exact: every
// dedup key of the state is in the filter (it was in the snapshot the
// filter was built from, or Txn.flush added it since; an entry's own
// writes are checked before the filter), and a "maybe" reads as before.
// The filter never decides an answer, only whether to read, so apply is
// as deterministic with it as without it, whenever it is rebuilt. It is
// built on its own goroutine from a Pebble snapshot on open, after a
// snapshot recovery, and when its insertions pass its capacity (swept keys
// stay in it until then); the next Update swaps it in with the keys
// flushed meanwhile, and until the first is in every lookup reads.
// Shard.DedupStats counts the reads it avoided.
//
// The storage gate judges proposals, never entries. A follower cannot
// refuse to apply what a majority committed (apply must stay
// deterministic, and a node that cannot write halts), so a full disk is
// protected by its headroom above the high mark and by every proposer
// refusing growing writes meanwhile: the gate reads the replicated set
// (and this node's own latch), which only node-status ops change; their
// apply is as deterministic as any other op's. The gate decides before
// anything is proposed, so ErrStorageFull is a definite refusal: the
// write did not happen. Node-status ops, ticks and every op whose
// applier says it does not grow the store (acks, pops, deletes, trims,
// sweeps, timer fires) always pass, and so does what a caller marks
// with AllowWhenFull (the S3 sink's rows, retention's notes).
// Corruption is fail-stop (corrupt.go, verify.go). A node never serves
// data that failed a check, and never applies over it: its peers hold the
// same state. Before the host starts, VerifyStore reads the data
// directory strictly: every table of the raft log store (old Pebble) and
// of the shards' stores (Pebble v2) against its block checksums, the
// MANIFESTs and the WALs Pebble would replay with a reader that takes a
// chunk that does not check for a torn end only when nothing of the same
// log checks after it (Pebble itself stops at the first, and would
// silently drop fsynced entries after a flip in the middle of its last
// WAL, giving raft back a log, a term and a vote from the past), and the
// active segment's records against their pointers' checksums. While the
// node runs, Pebble's DataCorruption events, a segment record that fails
// its checksum, and dragonboat's panics over a corrupted raft log store
// (or over a log shorter than the commit it acknowledged) are findings
// too. A finding is written to DataDir/CORRUPT first, then
// Config.OnCorrupt is told (the broker prints one FATAL line naming the
// file and exits 3), and reads answer ErrCorrupt; NewHost and VerifyStore
// refuse a marked directory at once. Not detected: a flip in the very
// last chunk of a log reads as a torn write (the format cannot tell), and
// a record of an older segment is checked only when it is read.
//
// Replicas are replaced, never reused (members.go). A node whose data is
// lost or corrupted is rebuilt from its peers: ReplaceReplica deletes its
// id and adds a fresh one at the same address, and the node starts with
// that id and Join on an empty directory, catching up from a snapshot. An
// id once deleted is never added again (dragonboat refuses it), and a
// data directory holding one replica id does not start under another.
//
// Unknown outcomes: dragonboat does not deduplicate proposals on on-disk
// state machines, and a proposal that timed out (ErrTimeout) may still
// apply. Callers retry with the same ids (transactionId, KV expect) and the
// state machine's deduplication makes the retry safe.
//
// # Usage
//
//	h, err := raftlog.NewHost(raftlog.Config{
//		NodeID: 1, RaftAddress: "127.0.0.1:7000", DataDir: "/var/lib/queen/raft",
//		Members: map[uint64]string{1: "127.0.0.1:7000"},
//	})
//	appliers := queuelog.Appliers()
//	maps.Copy(appliers, kvstore.Appliers())
//	shard, err := h.StartShard(1, appliers)
//	answer, stamp, err := shard.ProposeOp(ctx, op.Op()) // any family's op
//	got, err := shard.LocalRead(func(v *raftlog.View) (any, error) {
//		return queuelog.ReadRecords(v, t, "orders", "cust-1", 0, queuelog.ReadLimits{MaxRecords: 100})
//	})
//	defer h.Close()
package raftlog

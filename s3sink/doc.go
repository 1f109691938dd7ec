// Package s3sink is Queen's S3 sink: it mirrors a tenant's queues into an
// S3-compatible bucket as JSONL or Parquet objects in a Hive layout,
// exactly once, from inside every node of the broker.
//
// # What it owns
//
//   - Engine (engine.go, placement.go): one sink, every queue of its
//     settings. It beats a presence row, counts the nodes running the sink,
//     claims free queues paced by how many it runs already (one second
//     each), keeps to its fair share ceil(queues / nodes), and gives back
//     the least-buffered queue when it held more for a whole TTL. Its
//     first claims wait until it has counted the nodes around it (every
//     node of the cluster, or a TTL; a third of the TTL when the size of
//     the cluster is unknown), beating at every tick meanwhile, so that
//     nodes started together share from the start; claims are one at a
//     time, each judged against the share with the ones before it counted. A lease row left by an earlier life of the node
//     is taken back at once.
//   - KV calls (kvcall.go): each with a deadline of a sixth of the TTL
//     (500 ms to 5 s), so a leader that stops answering costs a call, not
//     the lease; timed on queen_s3_kv_call_seconds.
//   - The queue task (queue*.go): the lease (putIfAbsent with a TTL,
//     refreshed every third of it), restore (the pointers, the redo of an
//     intent, the start point fixed the first time the queue is found),
//     the open window filled from the log, and the commit sequence:
//     intent, objects then manifest, commit pointer.
//   - Lost notes (lost.go): what the broker's retention deleted that the
//     lake does not hold, written by the broker in the trim's own entry
//     (Debts, LostNotes), reported by the next owner in the next
//     manifest's lost ranges, and dropped with that window's commit.
//   - Windows (window.go) on the broker's clock, closed on size, age, the
//     alignment boundary, memory pressure (Memory), or a drain.
//   - Its three interfaces to the world (broker.go, store.go): Log (the
//     queue log of this node), KV (the tenant's KV store) and ObjectStore
//     (the bucket), each with its error contract; queen adapts the broker
//     to the first two, s3store implements the third over aws-sdk-go-v2.
//     Log.Fetch answers lakeformat.Record, the one record type from the
//     log to the lake (Partition set by the Log, ts the entry's stamp):
//     the sink buffers and encodes the records it reads as they are.
//     ObjectStore and its error classes live in the leaf package objstore,
//     so that s3store (with its own Config) and the tools that read a lake
//     import none of the engine.
//   - Configuration (config*.go): typed Settings and NodeSettings, their
//     defaults (DefaultSettings, DefaultNodeSettings) and Validate, which
//     names the variable, the value and the range (NewEngine refuses what
//     it refuses, with its error); ParseEnv, which reads
//     them from the text of the QUEEN_S3_* variables, and ParseDocument,
//     from a control-plane document, with the spec's one-line refusals
//     (*ConfigError). The sink reads no environment: queen/config reads
//     the variables, once, and hands their text to ParseEnv.
//   - Its KV documents (kvdocs.go): their values. Their namespace and keys,
//     and the one reader of the commit pointer, live in the leaf package
//     kvdoc, which the broker's retention hold (CommittedKey,
//     DecodeCommitted) and the lake's verifier (StartKey) import without
//     the engine; the engine reads its pointer through kvdoc too.
//   - Status (status.go) and metrics (metrics.go).
//
// s3sink imports neither raftlog, kvstore nor httpd: it sees the broker
// only through Log and KV.
//
// # Why a window is written once
//
// Window k of a queue holds the records with T(k-1) <= ts < T(k), and
// T(k) is never later than the node's safeTime minus the guard. safeTime
// is the greatest stamp the node has applied, and every entry it has not
// applied yet gets a greater stamp, so once window k closes no record can
// join it: rebuilding window k, on this node or the next owner, reads the
// same records in the same order, and lakeformat encodes them to the same
// bytes under a key made of k and the window's bounds alone. The store is
// asked for nothing else: no conditional PUT, no LIST, no read-after-write.
//
// The commit sequence writes the intent (fixing T(k)) before any object,
// then the data objects, then the manifest, then the commit pointer; only
// the pointer makes the window real. A node that dies anywhere in it leaves
// the next owner an intent to redo (same records, same bytes, same keys) or
// a finished upload whose manifest names the intent, which it commits as
// it is.
//
// The intent batch and the pointer batch each begin with a rewrite of the
// lease row that must find the version this node last wrote (the fence).
// Versions are unique and increase on every write of the row, so a batch
// can only apply while no other node has written the lease since this
// node's last write. Two nodes cannot both hold that: a second holder took
// the lease with a write, after which the first holder's expected version
// is stale forever. So two nodes can never commit different windows of one
// queue; a node whose lease moved while it stalled finds its batch rolled
// back (queen_s3_commit_precondition_lost_total), and the queue stops
// there.
//
// # Nothing missing goes unsaid
//
// The lake can lack a record only through a lost range. While a node runs
// a queue it sees every deletion as a fetch below the log start. While no
// node runs it, the broker's retention notes what it deletes of each
// sink's debt (the records after the commit pointer, or after the start
// point before the first commit) in the same raft entry as the trim,
// fenced by checks of the sink's documents: a note is exact, and a sink
// that moved a pointer meanwhile rolls the trim back. A queue's start
// point is written once, before the first read, so a restart or a new
// owner never starts it at a new "latest" and skips what came between.
//
// An error whose outcome is unknown (a KV write that timed out) is followed
// by reading the lease and the pointers back before anything is written
// again, so a write that did apply is never taken for a lost precondition;
// and a precondition lost to a late write of this node's own (the lease
// row still holds this life's incarnation) is read back too, not taken for
// a fence.
//
// # Who owns a queue
//
// A node reports a queue as its own (ownedHere) while it runs it and its
// lease has not run out: the start of the last call that wrote the lease,
// plus the TTL. The row itself lives until the stamp of that write plus
// the TTL, which is later (stamps follow the proposer's clock and never
// go back), so by the time another node can claim the queue this one has
// stopped saying it owns it, to within the skew between the two nodes'
// clocks. A refresh that fails is tried again at once, after a read-back;
// when none is answered before the lease runs out the run ends failed
// (lapsed), not fenced, and the node claims again after its failure
// backoff (a second, doubling, at most the TTL). A node giving a lease
// back stops reporting it before it sends the delete. The lag it reports is the
// broker's clock now minus what the lake holds, whether the queue is
// filling or stuck in its commit steps; its gauges are set at every tick.
//
// # Usage
//
//	e, err := s3sink.NewEngine(tenant, settings, node, s3sink.Deps{
//		Log: myLog, KV: myKV, Store: store, Metrics: s3sink.NewMetrics(reg),
//	})
//	go e.Run(ctx)
//	...
//	e.Drain(shutdownCtx) // commit what is worth it, give the leases back
package s3sink

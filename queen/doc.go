// Package queen is the Queen broker: the binary cmd/queen and what it
// assembles. It is the only module that imports all the others; nothing
// imports it.
//
// # What it owns
//
//   - config: the configuration, read once from the environment (PORT and
//     QUEEN_*), defaults first, then each value checked; a bad value stops
//     the boot with one line naming it (config.BootError).
//   - internal/broker: the adapter that serves httpd.Broker (and
//     httpd.Consumer, Transactor, Admin, Locker, Timerer, and Ephemeral
//     from internal/ephemeral) from raftlog's queue log,
//     kvstore and consume, mapping their errors to the HTTP contract's;
//     it seals and opens the payloads of encrypted queues and bounds
//     maxSize.
//   - internal/consume: consuming as a family of the state machine: pop,
//     ack, leases, consumer groups, retries, the DLQ, transactions' acks
//     and positions, seek and replay (see its doc for the invariants).
//   - internal/locks: locks and semaphores (POST /api/v1/locks) as KV rows
//     of the namespace queen-locks, turned in the state machine; the token
//     is the row's version and the guard a required KV check.
//   - internal/timers: timers as a family of the state machine: schedule,
//     cancel, peek, list, count, and the fires the leader proposes every
//     QUEEN_RAFT_TIMER_TICK_MS, each a push and the timer's deletion in one
//     entry (see its doc for the invariants).
//   - internal/ephemeral: this node's ephemeral queues (/api/v1/ephemeral/*),
//     in its memory only, never in the raft log: each node serves its own,
//     on a follower as on the leader and without a leader, bounded by
//     QUEEN_EPHEMERAL_MAX_BYTES, lost on a restart by design.
//   - internal/seal: AES-256-GCM sealing under QUEEN_ENCRYPTION_KEY.
//   - internal/retention: the leader's retention pass (retentionSeconds
//     with the S3 sink's hold, completedRetentionSeconds).
//   - internal/sinkadapter: the S3 sink's view of the log and the KV.
//   - internal/tick: the loop of the periodic jobs (retention, the timer
//     firer, the ephemeral store's sweep): one call an interval.
//   - internal/sinks: the node's S3 sinks, the default tenant's from the
//     environment and one per control-plane tenant, supervised: started,
//     rebuilt when their row changes, restarted with backoff, drained
//     within QUEEN_S3_SHUTDOWN_GRACE_MS; the s3 block of GET /status.
//   - cmd/queen: wiring (raft host, shard 1 with the KV, consume, locks
//     and timers appliers, the leader's timer firer, the S3 sinks' supervisor,
//     the ephemeral store and its sweep, the HTTP server, the Prometheus
//     registry), logging (tint on a terminal, JSON otherwise), and signals.
//
// # Invariants
//
// Any node answers any route: writes on a follower are forwarded to the
// leader by raft and answered once committed and applied here; reads by
// offset answer from this node's applied state; KV reads are linearizable.
// Pops and acks are raft writes judged on the broker clock, so a lease is
// exclusive across a change of leader while clocks stay within
// QUEEN_RAFT_MAX_CLOCK_SKEW_MS.
// Ephemeral queues are the exception: a node answers them from its own
// memory, never through raft, and loses their messages when it stops,
// SIGTERM included (guarantees.md).
// SIGTERM and SIGINT stop the listener, let requests in flight finish
// (QUEEN_SHUTDOWN_GRACE_MS), close the raft host and exit 0: everything
// answered was committed before it was answered, so nothing acked is lost.
//
// # Usage
//
//	go build -o bin/ ./queen/cmd/queen && ./bin/queen   # one node, port 6632, data in ./queen-data
//	QUEEN_RAFT_NODE_ID=1 QUEEN_RAFT_MEMBERS=1=10.0.0.1:6633,2=10.0.0.2:6633,3=10.0.0.3:6633 queen
//
// The end-to-end tests (e2e) start the real binary as one and three
// processes and stop them with SIGKILL and SIGTERM.
package queen

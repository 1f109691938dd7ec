// Package sinks runs a node's S3 sinks: the default tenant's, from the
// QUEEN_S3_* environment (source env), and one per control-plane tenant,
// from the rows the control plane keeps in the replicated KV (source cp;
// s3-sink.md, "A bucket per tenant"; SINK-CONFIG.md §1, §6, §8).
//
// # What it owns
//
//   - Supervisor (supervisor.go): starts the sinks, reads the control
//     plane's rows every Options.Interval (5 s in the binary) through a
//     Source and reconciles, drains them all at SIGTERM within one
//     QUEEN_S3_SHUTDOWN_GRACE_MS. Every sink shares one s3sink.Memory (the
//     node's QUEEN_S3_MEMORY_MB), one s3sink.Metrics (series of a tenant
//     other than the default one carry its tenant label), and the
//     node-wide settings of the environment (s3sink.NodeSettings).
//   - The plan of a row (plan.go): a row that may not run (disabled, or
//     its cluster or tenant neither active nor push_blocked) runs nothing;
//     a row of the default tenant, with no tenant, or naming a tenant
//     another row names too is refused; otherwise its document goes
//     through s3sink.ParseDocument and its secret is opened with
//     QUEEN_ENCRYPTION_KEY. A refusal is the unit's phase error, with a
//     reason that names the row (its cluster and tenant) and, for a
//     document, the sink's own sentence.
//   - A runner per unit (runner.go): the goroutine that starts, drains,
//     rebuilds and restarts that unit's engine, one at a time.
//   - The s3 block of GET /status (status.go).
//
// Unit and Source (unit.go) are the contract with the control plane. A
// Source lists every row, of every tenant; an error from it changes
// nothing but controlPlane.error in the status: the sinks running carry
// on as they are, and a later read that succeeds clears the error. Units
// is called from one goroutine, with a deadline of max(Interval, 5 s).
//
// # Invariants
//
//   - A unit runs at most one engine at a time: a rebuild drains the old
//     engine (and waits for its Run to return) before the new one is
//     built. Two engines of one tenant on one node would hold the same
//     lease identity with two incarnations, and take its queues from each
//     other.
//   - A row's target is computed again only when its stamp moves:
//     updatedAtUs, enabled, runnable, its tenant, or a refusal that follows
//     from the other rows. Every write of a row moves updatedAtUs, and that
//     is how a rotated secret reaches the store client: the sink is
//     drained and built again from the new row. A row that changed without
//     moving updatedAtUs is not looked at again.
//   - A secret is opened only when it is sealed (seal.Sealed): Open passes
//     unsealed bytes through, and a control-plane secret is stored only
//     sealed. No refusal, log line, status or metric carries a secret's
//     bytes; s3sink.Settings logs and prints without its SecretKey.
//   - A refused unit runs none of its queues, and the other units carry
//     on. The default tenant's sink comes from the environment only.
//   - An engine whose Run returns, or panics, when nothing asked it to is
//     reaped (its context cut, its queues drained) and started again after
//     a backoff of RestartMin doubling to RestartMax (1 s to 30 s), back to
//     RestartMin after a run that lasted RestartMax. restarts, lastExit
//     and backoffMs count it. A rebuild is no restart.
//   - No runner is added once Drain has started; Drain returns when every
//     runner has drained, or when the grace is spent, and then cuts what
//     is left (the next owners redo from the intents).
//
// # Phases
//
// A unit is starting (its engine runs but its bucket has not answered the
// probe yet), running, backoff (waiting to restart after an unasked exit),
// stopped (disabled, not runnable, its row gone, or the node drained) or
// error. A unit whose row is gone leaves the status once it has drained.
// The node's phase is starting until the control plane's rows were read
// once, running, then stopped after Drain.
//
// QUEEN_S3_EMBEDDED=false runs nothing: Start returns nil, and a nil
// *Supervisor's Status and Drain do nothing. With it true and
// QUEEN_S3_QUEUES unset, the node runs only the control plane's sinks.
//
// # Usage
//
//	sup, err := sinks.Start(ctx, sinks.Options{
//		Env: sinkCfg, Source: controlPlane, Sealer: sealer, Shard: shard, KV: kv,
//		Registry: reg, Logger: log, ClusterNodes: len(members), Crash: crash,
//	})
//	...
//	b.StatusExtra = func(ctx context.Context) map[string]any { return map[string]any{"s3": sup.Status(ctx)} }
//	...
//	sup.Drain() // at SIGTERM, beside the HTTP server's shutdown, before raft closes
//
// # The main loop
//
//	for {
//		units, err := source.Units(ctx)   // err: controlPlane.error, nothing else moves
//		for each row whose stamp moved:   // new, rewritten, enabled, disabled, ...
//			runner.set(plan(row))          // run settings, stop, or refuse
//		for each runner whose row is gone:
//			runner.set(removed)            // drain, then leave the status
//		sleep Interval
//	}
package sinks

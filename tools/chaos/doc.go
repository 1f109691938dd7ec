// Package chaos is the fault campaign's harness (issue 17,
// RELIABILITY.md): Run starts a cluster of real queen processes whose
// raft links go through a netproxy.Mesh, drives a workload, strikes with a
// fault on the schedule Config.Seed fixes, heals, waits for the nodes to
// agree, and checks the history with package check.
//
// # Invariants
//
//   - The seed fixes the schedule: when each fault strikes, whom it
//     strikes (by role: the leader of the moment) and for how long, and
//     which partition each push goes to. The interleaving of the writers
//     with the faults is the machine's.
//   - A history records what each client sent and what it was answered; a
//     push without an answer may or may not be in the log, and the
//     checker allows either.
//   - Processes are stopped by their pid (SIGKILL, after SIGCONT), and
//     every port is 127.0.0.1's.
//   - A disk-full run mounts one tmpfs per node (ClusterOptions.DiskFull,
//     diskfull.go) and Cluster.Stop unmounts each once the nodes are
//     dead: Run defers it on every path, and StartCluster calls it when
//     a start fails. A 507 storage_full is a
//     definite refusal in the histories: the op did not happen.
//
// # The lake workload
//
// WorkloadLake runs the embedded S3 sink under the same faults. Before the
// cluster starts (clusterEnvs, the one hook a workload has there) it
// starts versitygw on a port of 127.0.0.1 ($QUEEN_CHAOS_VERSITYGW, else
// <repo>/.cache/bin/versitygw from `make tools`, else PATH; none is an
// error of the run that says so), with its buckets under the run's
// directory, and gives every node the sink's QUEEN_S3_* environment, as a
// user configures the default tenant's sink: queue chaos-lake from its
// first record, windows of one second, a lease of three. The writers are
// the log workload's. finish checks the log as the log workload does,
// waits (60 s at most) until the lake's last committed window ends after
// the log's last record, then runs lake.Verify in-process against node 1
// and makes each problem an anomaly named after its check (lake-duplicate,
// lake-missing, lake-extra, ...; lake-incomplete when the lake did not
// catch up). The versitygw process is stopped by its pid after the nodes.
//   - A node's slot (Node.ID: its mesh address, data directory and log)
//     outlives its raft replica id (Node.Replica): the bit-flip fault
//     replaces a node that found its data corrupted under a fresh id at
//     the same slot (fault_bitflip.go), as the operator would.
//
// # Workloads
//
// Each is a file workload_<name>.go, registered in workload.go:
//
//   - log: writers push records with transaction ids to three partitions,
//     retrying unanswered pushes with the same id; check.CheckLog.
//   - kv: clients put and get three registers; check.CheckKV.
//   - lake: the log's writers into the S3 sink (above).
//   - counter: clients incr two counters by 1, each incr once; every node
//     reads each counter at the end; check.CheckCounter and
//     check.CheckSame.
//   - absent: rounds of a race, each a fresh key on which four clients
//     putIfAbsent at once; every node reads every key at the end;
//     check.CheckPutIfAbsent, check.CheckLosersSaw, check.CheckSame.
//   - txn: transactions of a push to each of two partitions and a KV put,
//     retried with the same ids until answered committed (success, or the
//     rollback duplicate); every node's logs and keys read at the end;
//     check.CheckTxn.
//   - consume: two writers push (a logWorkload) while three consumers of
//     one group pop and ack, now and then abandoning a pop so that its
//     lease expires; a drain after the faults healed; check.CheckLog and
//     check.CheckConsume.
//   - lock: four clients contend for two locks, write a key under each
//     permit's guard, and release or abandon it; check.CheckLock.
//   - timer: three clients schedule timers of 0.2–2 s and cancel one in
//     five; a watcher notes when each fired; check.CheckTimers.
//
// The checks of consume, lock and timer hold in real time within a skew
// bound (1 s); under FaultClock, which sets a node's clock up to 5 s
// ahead, past the 500 ms the broker's guarantees assume, Run widens it to
// 5.5 s (skewAllower).
//
// # Usage
//
//	res, err := chaos.Run(ctx, chaos.Config{Bin: "/tmp/queen", Dir: dir, Nodes: 3,
//		Seed: 1, Duration: 20 * time.Second, Fault: chaos.FaultPartition})
//	fmt.Println(res.Ops, res.Acked, res.Faults, check.Summary(res.Anomalies))
package chaos

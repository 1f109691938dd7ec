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
//   - A node's slot (Node.ID: its mesh address, data directory and log)
//     outlives its raft replica id (Node.Replica): the bit-flip fault
//     replaces a node that found its data corrupted under a fresh id at
//     the same slot (fault_bitflip.go), as the operator would.
//
// # Usage
//
//	res, err := chaos.Run(ctx, chaos.Config{Bin: "/tmp/queen", Dir: dir, Nodes: 3,
//		Seed: 1, Duration: 20 * time.Second, Fault: chaos.FaultPartition})
//	fmt.Println(res.Ops, res.Acked, res.Faults, check.Summary(res.Anomalies))
package chaos

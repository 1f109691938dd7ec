// Package tools holds Queen's operator and test programs, each under cmd/,
// with the logic that other modules' tests call in importable packages:
//
//   - queen-bench: an HTTP load generator for a running broker: concurrent
//     connections pushing (or fetching) batches of records, consumers
//     popping and acking a prefilled queue, or pairs timing how fast a
//     parked long-poll pop is answered after a push; it reports records/s
//     and latency percentiles.
//   - queen-lake (package lake): lists a queue's S3 lake window by window
//     (ls) and checks it (verify): manifests, objects, the window sequence,
//     duplicates, orphans, and with -broker the lake against the broker's
//     log.
//   - chaos/check: the history checkers of the fault campaign, pure Go:
//     a queue's log as the nodes serve it against the pushes and their
//     answers (lost, moved, duplicate, gap, diverged, phantom, corrupt),
//     KV linearizability per key (porcupine), counters and put-if-absent.
//   - queen-chaos (package chaos): the fault campaign. Each run starts real
//     queen processes whose raft links go through proxies it can cut one
//     direction at a time (chaos/netproxy: every node advertises its proxy
//     in QUEEN_RAFT_ADDRESS and listens behind it at
//     QUEEN_RAFT_LISTEN_ADDRESS; the proxy learns who dialed from the
//     first frame), drives a workload, strikes on a schedule the seed
//     fixes, heals, and checks the history with chaos/check (the log,
//     linearizable KV registers with porcupine, counters, putIfAbsent).
//   - chaos/lossyfs: a FUSE loopback (go-fuse) that the harness serves a
//     node's data directory through, and whose Crash reverts every file to
//     its last fsync: a power loss, where a SIGKILL keeps the page cache.
//
// The programs talk to the broker over its public HTTP API and to the
// bucket over the S3 API only, as an operator's tools would, so they work
// against any deployment.
//
//	go run ./cmd/queen-bench -url http://127.0.0.1:6632 -c 64 -batch 100 -duration 10s
//	go run ./cmd/queen-lake verify -endpoint http://127.0.0.1:9000 -bucket lake -path-style -queue orders
//	go run ./cmd/queen-chaos -bin /tmp/queen -fault partition -runs 5 -seed 1
package tools

// Package tools holds Queen's operator and test programs, each under cmd/:
//
//   - queen-bench: an HTTP load generator for a running broker: concurrent
//     connections pushing (or fetching) batches of records, reporting
//     records/s and latency percentiles.
//
// The programs talk to the broker over its public HTTP API only, as an
// operator's tools would, so they work against any deployment.
//
//	go run ./cmd/queen-bench -url http://127.0.0.1:6632 -c 64 -batch 100 -duration 10s
package tools

// Command queenctl is the operator's command line for a Queen broker: it
// reads a node's health and status, lists queues and consumer groups,
// pushes, pops and acks messages, moves groups, lists and replays dead
// letters, reads and writes the KV store, and reads the S3 lake (ls,
// verify), all over the broker's HTTP API (shared/spec/API.md).
//
// Usage:
//
//	queenctl [global flags] <command> [args] [flags]
//
//	queenctl status
//	queenctl queues
//	queenctl queues orders
//	queenctl push orders --partition cust-1 '{"order":1}'
//	producer | queenctl push orders -          # one JSON payload per line
//	queenctl pop orders --group billing --batch 10 --wait --ack
//	queenctl ack <transactionId> <partitionId> --lease <leaseId> --group billing
//	queenctl groups
//	queenctl groups lag --min-lag 100
//	queenctl groups seek billing orders --to 2026-01-02T03:04:05Z
//	queenctl dlq --queue orders
//	queenctl dlq replay <id>
//	queenctl kv get config feature-x
//	queenctl kv put config feature-x '{"on":true}' --ttl forever
//	queenctl lake ls -endpoint http://127.0.0.1:9000 -bucket lake -path-style -queue orders
//	queenctl lake verify -endpoint http://127.0.0.1:9000 -bucket lake -path-style -queue orders
//
// Global flags, before or after the command: --url (default $QUEEN_URL,
// else http://localhost:6632), --token (default $QUEEN_TOKEN, sent as
// Authorization: Bearer), --tenant (default $QUEEN_TENANT, sent as
// x-queen-tenant), --json (print the broker's answer, or one JSON
// document, for scripts; without it, aligned tables for people).
//
// Exit status: 0 ok; 1 the broker refused (a line
// "queenctl: <METHOD> <path>: <status> <code>: <message>"), could not be
// reached, or answered that nothing was done (an ack or KV write not
// applied, a key not found, a lake check failed); 2 bad usage.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

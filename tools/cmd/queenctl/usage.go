package main

import "github.com/queen-mq/queen-go/tools/lake"

const usage = `usage: queenctl [global flags] <command> [args] [flags]

Commands:
  status                         node health, raft, disk and sink (GET /health, GET /status)
  queues [<queue>]               queues with their depth; one queue with its partitions and groups
  push <queue> [<json>|-]        push one payload, or one per stdin line (- or none)
       [--partition P] [--txn ID]
  pop <queue> [--group G] [--batch N] [--wait] [--timeout D] [--partition P]
       [--partitions N] [--mode new|all] [--ack]
                                 pop messages (and ack them, with --ack)
  ack <transactionId> <partitionId> [--lease L] [--group G]
       [--status completed|failed|retry|dlq] [--error MSG]
  groups [<group>]               consumer groups and their lag; one group by partition
  groups lag [--min-lag N]       the groups lagging by N messages or more (default 1)
  groups seek <group> <queue> (--to RFC3339 | --to-end) [--partition P]
  dlq [--queue Q] [--group G] [--partition P] [--limit N]
                                 dead letters
  dlq replay <id> [--queue Q] [--partition P]
                                 push a dead letter again
  kv get <ns> <key>              a KV entry
  kv put <ns> <key> <json> --ttl SECONDS|forever
                                 write a KV entry
  lake ls|verify [lake flags]    the S3 lake of a queue (as queen-lake; 'queenctl lake -h')
  help                           this text

Global flags (before or after the command):
  --url URL        broker (default $QUEEN_URL, else http://localhost:6632)
  --token JWT      bearer token (default $QUEEN_TOKEN)
  --tenant UUID    tenant, sent as x-queen-tenant (default $QUEEN_TENANT)
  --json           print the broker's answer as JSON, for scripts

Exit status: 0 ok, 1 the broker refused or could not be reached or did
nothing, 2 bad usage.
`

const lakeUsage = `usage: queenctl lake <ls|verify> [flags]

  ls       list the committed windows of a queue, from their manifests
  verify   check the queue's lake (and, with -broker, compare it with the
           broker's log); exits 0 only when every check passes

Bucket flags (both commands):
` + lake.BucketFlagsUsage + `
verify flags:
` + lake.VerifyFlagsUsage + `
-tenant defaults to the global --tenant, -broker-token to --token.
`

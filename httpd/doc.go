// Package httpd is Queen's HTTP API (shared/spec/API.md) on chi.
//
// # What it owns
//
// The routes, the JSON codecs of their bodies and answers, the contract's
// limits and defaults, the mapping of errors to statuses and codes, the
// tenant of a request, and the HTTP metrics and their exposition. It
// owns no meaning: every route checks and defaults its body, calls one
// method of Broker (the interface it serves, broker.go), and renders the
// answer. The queen module adapts the real broker (raftlog, kvstore) to
// Broker; httpd imports none of our modules, nor dragonboat nor the AWS
// SDK (deps_test.go keeps that true).
//
// Routes: POST /api/v1/push, /fetch, /fetch/offsets, /partitions/changed,
// /configure, /kv, /stats/refresh; GET|PUT|DELETE /api/v1/kv/:ns/*key;
// GET /api/v1/resources/queues[/:queue]; GET /health, /status,
// /metrics/prometheus. HEAD is served wherever GET is, except on pop.
//
// When the Broker is also a Consumer (consume.go), the consuming routes
// too: GET /api/v1/pop/queue/:queue[/partition/:partition], GET
// /api/v1/pop (discovery); POST /api/v1/ack, /ack/batch,
// /lease/:leaseId/extend. Over a Broker that is not one they are 404
// no_such_route like any unknown route.
//
// # Invariants
//
//   - httpd never parses and re-prints a payload: a pushed payload reaches
//     the broker as the exact bytes of the request (a copy of them), and a
//     fetched one is written out as the broker returns it. Answers that
//     carry payloads are rendered by hand (json_append.go), because
//     encoding/json compacts and re-escapes a json.RawMessage.
//   - Every error body has a code: {"error":"<msg>","code":"<code>"} (plus
//     "leader" on a 503 retry with a hint), or on KV routes
//     {"error":"kv_bad_request","reason":"kv_…","detail":"…"}. A 503 and a
//     429 carry Retry-After: 1. Anything the contract does not name is a
//     500 internal, logged.
//   - No path or method outside the routes is served: 404 no_such_route.
//   - Broker methods get the request's context and the tenant; tenants
//     come only from the x-queen-tenant header when Options.TenancyHeader
//     is on, never from a body.
//   - One log line per 5xx error answer (with the error) and none for
//     other answers, nor for a settling /health's 503; logs go to
//     Options.Logger only.
//
// # Decisions the contract left open
//
//   - Bodies: malformed JSON (or an empty body) is 400 bad_body; JSON of
//     the wrong shape or type is 400 bad_request naming the field
//     ("items[2].queue must be a string"). Field names match exactly.
//     Integers are JSON numbers of integral value (3, 3.0, 1e3); beyond
//     int64 they saturate, and then clamp or range-check like any other.
//     null reads as absent for optional fields.
//   - push: an empty or missing items array is 400. partition "" reads
//     as "Default", and transactionId "" as none (the message id is used,
//     no dedup). Control characters are Unicode's (C0, DEL, C1). payload
//     null is a payload. A broker result with Error set answers status
//     "error" with that error and offset null.
//   - fetch: offset is required; partition as a number keeps its text as
//     sent; maxWaitMs and minBytes are clamped (0..30000, ≥0), not refused.
//     A missing or empty queue is 400 on fetch and fetch/offsets as on
//     partitions/changed. The entry cap is 1024 on all three.
//   - fetch/offsets: timestamp is required; a string is ISO-8601 (RFC 3339,
//     or without zone as UTC, or a date) or epoch ms digits; negative is 400.
//   - partitions/changed: since is ISO only (a number is 400); lastWriteAt
//     is null for a partition never written.
//   - configure: unknown options pass through as sent; the answer lists
//     the defaults table's keys in its order, then unknown stored keys
//     sorted, then maxQueueSize (the stored one, else maxSize's value).
//     mode other than merge or replace is 400.
//   - KV: the refusals httpd makes on KV routes use the KV shape. It
//     checks the path's namespace and key (kv_bad_namespace, kv_bad_key,
//     413 kv_key_too_large), query strings, path fields in the body, a
//     tenant field (kv_tenant_not_an_input), and JSON types of op fields
//     (op→kv_unknown_op, ns/namespace→kv_bad_namespace, key/keys/prefix/
//     after→kv_bad_key, ttlSeconds/forever→kv_bad_ttl, expect→kv_bad_expect,
//     delta→kv_bad_delta, min/max→kv_bad_bounds, others kv_bad_field; a
//     body of the wrong shape kv_bad_body). Values are the broker's to
//     check. "namespace" is an alias of "ns" (both given must agree). GET
//     answers 200 with found:false on a miss. A body over the cap is the
//     engine's 413 payload_too_large.
//   - resources/queues: {"queues":[{id,name,namespace,task,createdAt,
//     partitionCount}]}; the detail adds options (with defaults),
//     partitions[] (as partitions/changed shows them) and totals
//     {partitions, messages (Σ lastOffset+1−logStart), lastWriteAt}.
//   - pop: query values are exact (true|false, decimal integers); an
//     empty value reads as absent and a repeated parameter counts with
//     its first value; unknown parameters, autopilot, and namespace and
//     task on the queue routes are ignored; a malformed query string is
//     400. batch (1..10000), partitions (1..64) and leaseSeconds (≥ 1)
//     out of range are 400; timeout is clamped to 0..60000 ms.
//     subscriptionFrom is ISO-8601 as fetch/offsets reads it (no "now",
//     no epoch numbers); a time at or before the epoch reads as 1 µs.
//     commitOnDelivery and autoAck both given must agree. conflation=true
//     is always 400 (not supported; the contract's two refusals get their
//     own messages). The discovery form needs a non-empty namespace or
//     task and never long-polls. Path segments are unescaped (a partition
//     "eu west/1" is eu%20west%2F1); an empty one is 400. HEAD on a pop
//     route is 404: a pop leases, and a HEAD's messages would go unseen.
//     The 200 answer has traceId and producerSub null and no conflation
//     fields; a 204 has no body, Content-Type nor Content-Length.
//   - ack: partitionId is a string of decimal digits or a non-negative
//     JSON integer, passed on as digits without leading zeros. status
//     must be a string; one not named by the contract (case counts) reads
//     as completed. consumerGroup "" reads as absent: an item's own group,
//     else the batch body's, else __QUEUE_MODE__. A batch holds 1..10000
//     items. The answer's index and transactionId are the request's (the
//     broker answers in order), error null when the broker gave none; the
//     single route answers an array of one.
//   - lease extend: seconds is an integer ≥ 1 (no upper bound); the answer
//     shows the broker's leaseId, else the path's, and expiresAt null
//     when the broker gives none.
//   - A request whose client went away is counted as 499 and not logged;
//     context.DeadlineExceeded is a 503 timeout.
//   - Metrics are labelled by method (unknown methods as "other"), route
//     pattern ("unmatched" for 404 no_such_route) and status.
//
// # Usage
//
//	reg := prometheus.NewRegistry()
//	h := httpd.New(broker, httpd.Options{
//		TenancyHeader: cfg.TenancyHeader,
//		Logger:        log,
//		Registry:      reg,
//		Version:       version,
//	})
//	srv := &http.Server{Addr: ":6632", Handler: h}
//	err := srv.ListenAndServe()
package httpd

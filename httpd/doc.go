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
// Broker; httpd imports none of our modules but contract (the bounds
// every module shares), nor dragonboat nor the AWS SDK (deps_test.go keeps
// that true).
//
// Routes: POST /api/v1/push, /fetch, /fetch/offsets, /partitions/changed,
// /configure, /kv, /stats/refresh; GET|PUT|DELETE /api/v1/kv/:ns/*key;
// GET /api/v1/resources/queues[/:queue]; GET /api/v1/analytics/
// system-metrics, /analytics/worker-metrics; GET /health, /status,
// /metrics/prometheus, /metrics; GET / and /dashboard/*, the dashboard's
// page and assets (package dashboard: no data, the page reads the API).
// HEAD is served wherever GET is, except on pop.
// When the Broker is also a KVConsole, GET /api/v1/resources/kv/namespaces
// and POST /api/v1/resources/kv/list (route_kv_console.go).
//
// When the Broker is also a Consumer (consume.go), the consuming routes
// too: GET /api/v1/pop/queue/:queue[/partition/:partition], GET
// /api/v1/pop (discovery); POST /api/v1/ack, /ack/batch,
// /lease/:leaseId/extend. When it is also a Transactor (txn.go), POST
// /api/v1/transaction. When it is also an Admin (groups.go), the
// consumer-group, DLQ and messages routes of API.md §8: GET
// /api/v1/consumer-groups, /consumer-groups/lagging,
// /consumer-groups/:group; DELETE /api/v1/consumer-groups/:group,
// /consumer-groups/:group/queues/:queue; POST
// /api/v1/consumer-groups/:group/queues/:queue/seek,
// /consumer-groups/:group/queues/:queue/partitions/:partition/seek; GET
// and DELETE /api/v1/dlq; POST /api/v1/dlq/:id/replay; GET
// /api/v1/messages. When it is also a Statuser (status.go), the
// dashboard's reads: GET /api/v1/status, /status/queues,
// /status/queues/:queue, /status/analytics, /resources/overview,
// /resources/namespaces, /resources/tasks, /resources/partitions,
// /resources/queues/:queue/depth. When it is also a Tracer (traces.go),
// the trace routes: POST /api/v1/traces; GET /api/v1/traces/names,
// /traces/by-name/*name, /traces/:partitionId/*transactionId.
// When it is also a Locker (locks.go), POST
// /api/v1/locks; when a Timerer (timers.go), the timer routes. When it is
// also an Ephemeral (ephemeral.go), the ephemeral queues' routes
// (route_ephemeral.go): POST /api/v1/ephemeral/push, /ephemeral/ack,
// /ephemeral/configure, /ephemeral/reset; GET /api/v1/ephemeral/pop,
// /ephemeral/queues, /ephemeral/queues/:queue/depth; DELETE
// /api/v1/ephemeral/queue/:queue. They answer from the called node's
// memory, never through raft. When it is also a Streamer (streams.go),
// the streaming SDK's routes (route_streams.go): POST
// /streams/v1/queries, /streams/v1/state/get, /streams/v1/cycle; GET
// /streams/v1/queries[/:name]; DELETE /streams/v1/queries/:name, under
// the tenancy and auth of /api/v1. When it is also a Cluster
// (route_raft.go), the raft membership's routes: GET /api/v1/raft/members,
// POST /api/v1/raft/members/replace. Over a Broker that is not one, those routes
// are 404 no_such_route like any unknown route.
//
// A route file reads as its contract: what the route reads, what it asks
// of its part and what it answers. The mechanics are shared: route and
// reply (answer.go) adapt a read function and an answer function to an
// http.Handler, writing the answer (JSON, or rawJSON rendered by hand
// with the member appenders of json_append.go) or the error; bodyOf,
// queryFor and pathOf are the common reads, params (params.go) reads
// query parameters with the first refusal sticking, and each resource
// kind has one 404 (queueNotFound, queryNotFound, messageNotFound,
// notFound).
//
// Each of these optional parts is a field of Parts (parts.go). The broker
// binary calls NewFull with a Full, the interface of every part, and
// PartsOf fills each field from it statically: a method its broker lacks
// is a compile error, never a family of routes that answers 404. New
// takes a Broker and finds its parts by assertion, for tests' fakes that
// serve a few.
//
// # Invariants
//
//   - httpd never parses and re-prints a payload: a pushed payload reaches
//     the broker as the exact bytes of the request (a copy of them), and a
//     fetched one is written out as the broker returns it. Answers that
//     carry payloads are rendered by hand (json_append.go), because
//     encoding/json compacts and re-escapes a json.RawMessage. The push
//     body is read by a scanner of its own (push_scan.go), which answers
//     every body as decoding it with encoding/json did (FuzzPushDecode
//     holds it to that decoder, kept in push_ref_test.go).
//   - Every error body has a code: {"error":"<msg>","code":"<code>"} (plus
//     "leader" on a 503 retry with a hint), or on KV routes
//     {"error":"kv_bad_request","reason":"kv_…","detail":"…"}. A 503 and a
//     429 carry Retry-After: 1. Anything the contract does not name is a
//     500 internal, logged.
//   - No path or method outside the routes is served: 404 no_such_route.
//   - Every route has an access class in the route table (routes.go,
//     auth.go); with Options.Authenticators set, the gate checks the
//     request's credential against it before the route reads anything of
//     the request, even the tenant header. TestRouteClasses fails on a
//     route served without a class.
//   - Broker methods get the request's context and the tenant; tenants
//     come only from the x-queen-tenant header when Options.TenancyHeader
//     is on, never from a body. A request that carries the header more
//     than once is 400 bad_request: were a proxy to add its header beside
//     a client's, the client's could otherwise be the one read.
//   - SystemTenant, the nil UUID 00000000-0000-0000-0000-000000000000,
//     is reserved for the control plane (its rows in the replicated KV):
//     no /api request is ever served under it. The header naming it is
//     400 bad_request naming the header, as a header that is not a UUID
//     is; without tenancy every request is DefaultTenant's.
//   - One log line per 5xx error answer (with the error) and none for
//     other answers, nor for a settling /health's 503 or a 507
//     storage_full (the broker logs the disk's crossing once); logs go
//     to Options.Logger only.
//   - Every name a request gives (path, query or body) is checked against
//     contract's table before the broker is called: over its bound 413
//     name_too_long (or the contract's own code for transactionId, KV
//     keys and namespaces and ids), a bad character or invalid UTF-8 400
//     naming the field. Nothing is trimmed or replaced (contract/LIMITS.md).
//   - An error body quotes at most contract.ClipBytes (64) bytes of a
//     refused value and stays under 1 KiB: every message is made with
//     clipped arguments, and capped again where it is written.
//
// # Auth
//
// Off unless Options.Authenticators is set (queen sets the broker JWT's,
// package jwtauth, with JWT_ENABLED=true, and the control plane's API
// keys ahead of it when QUEEN_PROXY_CP_TOKEN is set). Then every route needs a
// credential that the first authenticator recognising it accepts, and
// whose principal Allows the route's class; Options.SkipPaths need none.
// The classes, and the routes of each (wantClasses in auth_test.go is the
// whole table):
//
//	public       GET /health, /metrics, /metrics/prometheus, the
//	             dashboard's GET / and /dashboard/*
//	node         GET /status, /analytics/system-metrics and
//	             worker-metrics, /raft/members: the node-wide reports,
//	             every tenant's
//	cluster      POST /raft/members/replace: an admin JWT or the control
//	             plane's token, never a tenant's API key
//	read         the GET reads of /api/v1 (queues,
//	             resources, status, analytics, consumer groups, DLQ,
//	             messages, traces, ephemeral queues); POST /fetch,
//	             /fetch/offsets, /partitions/changed, /stats/refresh
//	push         POST /push, /ephemeral/push
//	timers       POST /timers
//	transaction  POST /transaction
//	consume      pop (GET and HEAD), POST /ack, /ack/batch,
//	             /lease/:id/extend, GET /ephemeral/pop, POST
//	             /ephemeral/ack, POST /traces
//	shared       POST /kv, PUT and DELETE /kv/:ns/*key, POST /locks,
//	             DELETE /timers/:queue/*key
//	shared-read  GET /kv/:ns/*key, /resources/kv/namespaces, POST
//	             /resources/kv/list, GET /timers/:queue[/*key]
//	configure    POST /configure (read-write for a JWT, admin for a key)
//	admin        every DELETE of a queue, group, DLQ or
//	             message, seeks, subscription, DLQ replay, message retry,
//	             ephemeral configure, reset and queue delete
//	control-plane  /api/cp/*: guarded by x-queen-cp-token (cpGuard), never
//	             by the chain
//
// With the control plane on and a chain set, its token is a credential
// of the chain too (cpTokenAuth, last): the operator's, reaching the
// public, node and cluster routes, nothing of a tenant's. A principal bound to a tenant (an API
// key) makes that the request's tenant, whatever x-queen-tenant says; a
// principal that is a Refuser may refuse a route with an answer of its
// own (403 cluster_suspended, push_blocked) before Allows is asked; an
// authenticator's *Error of another status than 401 (a 503 when a key
// cannot be looked up) is answered as it is. A skip path serves GET and
// HEAD only. With the control plane on, a request whose credential is
// bound to no tenant (a JWT, a skip path) that names one in x-queen-tenant
// is 403 (tenancy's keysOnly). A transaction's parts are checked one by
// one against the principal (txnAllowed): acks and positions consume, KV
// shared, timers timers.
//
// Decisions: shared-read exists because API.md makes a KV GET and the KV
// console read-only for a JWT while §10 gives a proxy key's KV to produce
// or consume, so neither read nor shared fits them; a timer's DELETE is
// read-write there, so shared, and its peek and list shared-read. A
// trace event is recorded by a consumer (consume). An unmatched path is
// 404 no_such_route before any auth. A refusal is 401 unauthorized
// (WWW-Authenticate: Bearer realm="queen") or 403 forbidden naming the
// principal, the route and its class, in the engine's envelope; neither
// quotes the credential. A skip path ending in "/" is a prefix, except
// "/" alone, which is the root path only (as a prefix it would skip
// every route, which the product's default list cannot mean); a path
// with dot segments or doubled slashes is never skipped. When "/" is
// skipped, so is /dashboard/ (the page's assets, without which the page
// is blank). A request through a skip path has no principal.
//
// A push (JSON or binary, and a transaction's pushes) stamps the
// principal's subject on every item (PushItem.ProducerSub); a
// producerSub in the body is ignored, with auth or without. Pop answers
// it as producerSub (the framed pop as the frame's producer), fetch as a
// record's producerSub member, present only when the record has one.
// Ephemeral messages and timers keep none: a timer's fired record and a
// replayed dead letter have producerSub null.
//
// # Decisions the contract left open
//
//   - Bodies: malformed JSON (or an empty body) is 400 bad_body saying
//     where it broke, and so is one nesting arrays and objects deeper than
//     contract.MaxJSONDepth (128), saying the limit; a string of invalid
//     UTF-8 (or the escape of a lone surrogate) anywhere in a body is 400
//     bad_request naming where ("items[3].payload"). JSON of the wrong
//     shape or type is 400 bad_request naming the field ("items[2].queue
//     must be a string"). Field names match exactly. Integers are JSON
//     numbers of integral value (3, 3.0, 1e3), and query integers decimal
//     digits; each has its range (contract.Params, QueueOptionTable): a
//     fraction, a value beyond int64 (1e400) or one outside the range is
//     400 naming the field and the range, except that the contract's
//     clamped inputs (timeout, maxBytes, maxWaitMs, minBytes, limit,
//     minPopWaitTime) move a value inside int64 to the nearer bound. null
//     reads as absent for optional fields.
//   - push: an empty or missing items array is 400. partition "" reads
//     as "Default", and transactionId "" as none (the message id is used,
//     no dedup). Control characters are Unicode's (C0, DEL, C1). payload
//     null is a payload. A broker result with Error set answers status
//     "error" with that error and offset null.
//   - binary bodies (httpd/wire, route_push_binary.go, route_txn_binary.go,
//     route_pop_frames.go): a push or transaction body that starts with
//     QPB1 or QTB1, or is sent as application/x-queen-push, is the official
//     client's binary body. Its items are checked as JSON items are (names
//     by the contract, each payload one JSON document, refusals naming
//     groups[i].messages[j]); a body that decompresses past MaxBodyBytes is
//     413. A framed message keeps the id the client minted and is always
//     deduplicated (by its transaction id, or its id's text), so a retry of
//     the same bytes answers duplicate. Flag 2 answers the counts only:
//     push {count,queued,duplicate,error}, transaction the riders' results
//     with pushed, duplicate and acked. A binary transaction's messages are
//     operations after the head's, in the order written. A pop with
//     frames=true answers application/x-queen-pop (QPF1): one claim per run
//     of one partition and delivery attempt, one raw record per run of
//     consecutive offsets of one stamp, and partitionsClaimed, the
//     conflation flags and the autopilot's choice in the JSON object in
//     front; an answer the layout cannot carry exactly goes out as JSON.
//     (The layout carries createdAt in microseconds; the client renders a
//     framed message's to the millisecond, the JSON answer has all six
//     digits.)
//   - fetch: offset is required (0..2^63-1); partition as a number keeps
//     its text as sent; maxWaitMs and minBytes are clamped (0..30000,
//     0..8 GiB), not refused.
//     A missing or empty queue is 400 on fetch and fetch/offsets as on
//     partitions/changed. The entry cap is 1024 on all three.
//   - fetch/offsets: timestamp is required; a string is ISO-8601 (RFC 3339,
//     or without zone as UTC, or a date) or epoch ms digits; epoch ms
//     outside 0..253402300799999 (year 9999) is 400.
//   - partitions/changed: since is ISO only (a number is 400); lastWriteAt
//     is null for a partition never written.
//   - configure: the known options, their types, defaults and ranges are
//     contract.QueueOptionTable's; unknown options pass through as sent;
//     the answer lists the table's keys in its order, then unknown stored
//     keys sorted, then maxQueueSize (the stored one, else maxSize's
//     value). mode other than merge or replace is 400.
//   - KV: the refusals httpd makes on KV routes use the KV shape. It
//     checks every namespace and key, of the path and of the body
//     (kv_bad_namespace, kv_bad_key, 413 kv_key_too_large), query strings,
//     path fields in the body, a
//     tenant field (kv_tenant_not_an_input), and JSON types of op fields
//     (op→kv_unknown_op, ns/namespace→kv_bad_namespace, key/keys/prefix/
//     after→kv_bad_key, ttlSeconds/forever→kv_bad_ttl, expect→kv_bad_expect,
//     delta→kv_bad_delta, min/max→kv_bad_bounds, others kv_bad_field; a
//     body of the wrong shape kv_bad_body); ttlSeconds, expect and limit
//     must be integers int64 holds. Their values and the op's value are
//     the broker's to check. "namespace" is an alias of "ns" (both given must agree). GET
//     answers 200 with found:false on a miss. A body over the cap is the
//     engine's 413 payload_too_large.
//   - resources/queues: {"queues":[{id,name,namespace,task,createdAt,
//     partitionCount}]}; the detail adds options (with defaults),
//     partitions[] (as partitions/changed shows them) and totals
//     {partitions, messages (Σ lastOffset+1−logStart), lastWriteAt}.
//   - pop: query values are exact (true|false, decimal integers); an
//     empty value reads as absent and a repeated parameter counts with
//     its first value; unknown parameters, and namespace and task on the
//     queue routes, are ignored; a malformed query string is 400.
//     autopilot=true without batch pops AutopilotBatch (200), and its 200
//     answer carries "autopilot":{"partitions","batch"} as used (the 2.x
//     client leaves to the broker the knobs it does not send). batch (1..10000), partitions (1..64) and leaseSeconds
//     (1..604800) out of range are 400; timeout is clamped to 0..60000 ms.
//     subscriptionMode is new (new-only too) or all (from_beginning too,
//     as the official client spells it), case ignored; absent, it is
//     Options.DefaultSubscriptionMode (DEFAULT_SUBSCRIPTION_MODE).
//     subscriptionFrom is ISO-8601 as fetch/offsets reads it (no epoch
//     numbers), or "now", which means mode new (the client sends it); a
//     time at or before the epoch reads as 1 µs.
//     commitOnDelivery and autoAck both given must agree. conflation=true
//     needs a consumerGroup and refuses commitOnDelivery, each refusal
//     with its own message. The discovery form needs a non-empty namespace or
//     task and never long-polls. Path segments are unescaped (a partition
//     "eu west/1" is eu%20west%2F1); an empty one is 400. HEAD on a pop
//     route is 404: a pop leases, and a HEAD's messages would go unseen.
//     The 200 answer has each message's traceId as pushed and its
//     producerSub (each null when none), and no conflation fields; a 204
//     has no body, Content-Type nor Content-Length.
//   - ack: partitionId is a string of decimal digits or a non-negative
//     JSON integer, passed on as digits without leading zeros. status
//     must be a string; one not named by the contract (case counts) reads
//     as completed. consumerGroup "" reads as absent: an item's own group,
//     else the batch body's, else __QUEUE_MODE__. A batch holds 1..10000
//     items. The answer's index and transactionId are the request's (the
//     broker answers in order), error null when the broker gave none; the
//     single route answers an array of one.
//   - lease extend: seconds is an integer in 1..604800; no body, {} or
//     seconds null extend by the lease's own length (the official client
//     sends {}); the answer shows the broker's leaseId, else the path's,
//     and expiresAt null when the broker gives none.
//   - transaction: operations[i].type is push or ack (exact case). A push
//     operation is items[] (non-empty, items as push takes them) or the
//     inline form; either's traceId is a UUID or null, kept with the
//     record; items[] with a non-null inline queue, partition, payload or
//     transactionId is 400.
//     Message ids and dedup are push's. An ack operation is read as an
//     ack item (consumerGroup defaults to __QUEUE_MODE__). requiredLeases
//     are non-empty strings, passed on as sent (duplicates too). An ack
//     without leaseId gets the lease when requiredLeases and the other
//     acks name exactly one distinct id, else none (unfenced). kv[] takes
//     POST /api/v1/kv's ops, refused in its KV shape, except getPrefix
//     (400 bad_request); kv[] over 64 ops or 256 keys (an op's key plus
//     its keys[]) is 413 {"error":"payload_too_large","reason":
//     "kv_too_many_ops"|"kv_too_many_keys"}. timers[] takes POST
//     /api/v1/timers' ops, checked the same way. positions[] (at most
//     16,384) are {queue, consumerGroup, partition (default "Default"),
//     offset, metadata, subscriptionMode}: offset is required, the last
//     offset the group is done with (it reads offset+1 next; -1: none
//     yet) or null to forget the group's position there; metadata at
//     most 4096 bytes; subscriptionMode new (default) or all, for a group
//     that has no subscription yet; one per (queue, group, partition).
//     The shape's other refusals are 400 bad_request in the engine shape;
//     unknown members are ignored. operations, kv, timers and positions
//     count as content: none is 400. The answer is 200 whenever the
//     broker answers. A commit has one result per pushed item (all with
//     their operation's index), ack, kv op, timer op and position, in
//     that order; the index space runs operations, kv, timers, positions
//     (a kv, timer or position result also has its opIndex); index,
//     opIndex, transactionId and queueName are the request's; duplicate
//     appears only when true; an ack's error is null. A kv result is
//     {index,type,opIndex} followed by the broker's KV result's members in
//     its order, values byte for byte, without its own index, type and
//     opIndex; a timer result is {index,type,opIndex} and the timer
//     route's element; a position result {index,type,opIndex,success}. A
//     rollback has "results":[] and, when the broker gives the failed kv
//     op, ok:false, failedIndex, kvReason, version and value (null when
//     none). failedIndex counts in the flat list a commit would answer:
//     the pushed items and acks first, then kv[] (the official client
//     finds a lock's guard by it). An
//     answer without a transactionId, a rollback without a reason, or a
//     commit whose results do not match the request in count and types is
//     a 500.
//   - locks: POST /api/v1/locks takes {"operations":[…]} (at most 64;
//     no bare array). op is acquire, renew, release or get; name is
//     required; ttlSeconds (1..100 years, no forever) is required on
//     acquire and renew; limit is 1..1024 (default 1); token (≥ 1) is
//     required on renew and release, slot 0..1023 (default 0). Refusals
//     are 400 bad_request naming operations[i].<field>; the broker's own
//     (two operations on one lock, more than 4096 slots) too. The answer
//     is 200 {"results":[…]} with the broker's result objects in order:
//     a held or lost lock is an answer, never a status.
//   - timers: POST /api/v1/timers takes {"operations":[…]} (at most 256,
//     one per (queue, timerKey)); op is schedule, reschedule (the same
//     upsert) or cancel; queue and timerKey are required; a schedule
//     needs delayMs (an integer; a past one fires at once; over
//     QUEEN_TIMERS_MAX_HORIZON_S is 403 timer_beyond_horizon) and payload,
//     base64 of one JSON value (zstd-compressed when payloadZstd), at
//     most 1 MiB decoded (else 413 payload_too_large); partition defaults
//     to "Default" and txn is minted when absent. A field the server owns
//     (messageId, deliverAt, tenant, producerSub, attempts, any starting
//     with _, …) is 400 timers_server_owned_field. An element is
//     {ok,status,queue,timerKey,txn} and, for a schedule, messageId and
//     deliverAt (ISO, the broker clock); status scheduled, rescheduled,
//     cancelled or absent (ok false; "too_late" is never answered: a
//     fire and a cancel are ordered by the log). DELETE
//     /api/v1/timers/:queue/*timerKey?txn= is one cancel, answered as the
//     element; a txn given is echoed when nothing was cancelled. GET
//     /api/v1/timers/:queue/*timerKey is the pending timer {found:true,
//     queue,partition,timerKey,txn,messageId,createdAt,deliverAt,
//     nextAttemptAt,attempts,lastError,encrypted,payload (base64 as
//     stored)} or {found:false,queue,timerKey}; GET /api/v1/timers/:queue
//     pages them in timerKey byte order ({rows (without payload),
//     truncated, nextAfter}; limit 1..1000 clamped, default 100; after
//     exclusive) or, with mode=count&prefix=, answers {count}.
//   - traces (route_traces.go, whose handlers show each shape): POST
//     /api/v1/traces takes the official client's body {transactionId,
//     partitionId, consumerGroup, traceNames, eventType, data}:
//     transactionId and partitionId (as ack reads it, and at most
//     2^64-1) and data (one JSON value, null too, at most 64 KiB as
//     sent) are required; consumerGroup defaults to __QUEUE_MODE__,
//     eventType ("" too) to "info"; traceNames is null or an array of
//     non-empty strings of at most 256 bytes, a repeated one kept once,
//     at most 16 distinct. Every refusal is 400 bad_request naming the
//     field (a trace name or eventType over its bound too, not 413). It
//     answers 201 with the event as stored, without its data; a
//     partitionId or transactionId the broker does not know is stored
//     all the same (queue and partition null). An event renders {id,
//     transactionId, partitionId, queue|null, partition|null,
//     consumerGroup, eventType, data, traceNames, createdAt, expiresAt}.
//     The transactionId and the name are the rest of their path, '/'
//     included (the client does not escape them); limit is 1..1000
//     clamped (default 1000 for a message, 100 otherwise), by-name's
//     offset 0..10000 and its from and to ISO, a range [from, to) as
//     messages reads it; search is a prefix of the name.
//   - consumer groups: the list is {"consumerGroups":[{name,queues:[{queue,
//     subscribedAt,subscriptionMode,lag,partitions (a count)}],lag (the
//     sum of the queues')}]} in the broker's order; the detail is
//     {name,queues:[{queue,subscribedAt,subscriptionMode,lag,partitions:
//     [{partition,cursor,highWatermark,lag,leaseId,leaseExpiresAt}]}]}.
//     A queue's lag is the broker's; a partition's is highWatermark−cursor,
//     at least 0. Stamps always render (0 as the epoch), except
//     leaseId/leaseExpiresAt, null when there is no lease. lagging takes
//     minLag, a decimal integer ≥ 0 (default 1), and keeps the groups
//     whose lag is at least that. chi
//     tries a static segment first, so GET /consumer-groups/lagging is
//     always the list: a group named "lagging" can be deleted and sought
//     but not described. A missing group (ok false, or 0 queues deleted)
//     is 404 not_found naming it; a delete answers {deleted:true,
//     consumerGroup,queues}, the one-queue form too. POST
//     …/:group/subscription is not served (404 no_such_route).
//   - seek: the body is {"timestamp":"<ISO>"} (as parseISO reads it; a
//     number is 400, a time before the epoch seeks to the epoch) or
//     {"toEnd":true}, exactly one; toEnd false and null read as absent,
//     unknown members (a "to", say) are ignored; an empty body is 400
//     bad_body like any body route's. The answer is 200 {success:true,
//     consumerGroup,queue,partitions} even when no partition moved.
//   - DLQ: GET takes queue and consumerGroup (absent or empty: all) and
//     limit (1..1000, default 100); a letter renders messageId as a UUID,
//     data as stored (null when empty) and error null when empty, and
//     again as errorMessage (the name the official client reads). replay's
//     body is optional (empty, white space or null: none) and otherwise an
//     object whose queue and partition are strings ("" reads as absent);
//     a partition without a queue is 400. Its answer shows the broker's id,
//     else the path's. ErrGone is 404 {"error":"dead letter <id> is
//     gone","code":"gone"}. DELETE needs a non-empty queue, takes an
//     optional consumerGroup, ignores any body and answers {deleted,queue}.
//   - messages: needs a non-empty queue, namespace or task; partition
//     filters whichever queues those select. status is pending,
//     processing, completed or dlq (exact case); limit 1..1000 (default
//     200); offset 0..2^53-1; from and to are ISO
//     (as parseISO reads them), and from after to is 400. A from at or
//     before the epoch is open, and a to at or before it reads as 1 µs (0
//     would be open). The answer echoes the limit and offset used.
//   - status and resources (route_status.go, route_resources.go; each
//     handler's comment gives its query, answer and errors): every count
//     is arithmetic on Statuser.QueueStats, offsets, cursors and leases
//     from applied state, never a read of records. A "messages" block is
//     {total,pending,processing,completed} (msgCounts): one group's, or,
//     where no group is named, each partition's worst group's (the most
//     left to settle; a partition no group reads is all pending). No
//     dead-letter counts: they would need a walk over the letters (GET
//     /api/v1/dlq lists them). depth follows the official client's
//     get_queue_depth: ?group= (consumerGroup an alias), conflation
//     false and effectivePending = pending, since nothing conflates here.
//   - analytics (route_analytics.go): the product keeps time series in
//     its database; here they are what the node's metrics registry says,
//     sampled every interval by Options.Sampler into a ring in memory
//     (cmd/queen: every 10 s, the last hour), plus a "current" point read
//     at the request. from and to (ISO) bound the series; other
//     parameters are ignored. Throughput comes from queen_messages_total
//     (what this node's push, pop, ack and transaction routes did), by
//     its tenant label, so each tenant sees its own and never another's;
//     system-metrics reads the process and Go collectors; worker-metrics
//     treats the node's HTTP API as its one worker (both the node's,
//     whoever the requests were for). GET /metrics is /metrics/prometheus's series as JSON
//     (metricsJSON): the official client's admin.metrics() reads it and
//     decodes only JSON.
//   - ephemeral: API.md names only POST /api/v1/ephemeral/push; the
//     family's bodies and answers are the official client's, written
//     route by route in route_ephemeral.go. The calls in short: push
//     answers 201 {queue,partition,pushed}, 429 overloaded when it does
//     not fit now and 413 payload_too_large when it never can; pop is
//     always 200 with messages [] when empty; ack outcomes (acked,
//     redelivered, stale, unknown) are answers, never statuses; an
//     unknown configure option is 400; depth of an absent queue is 404
//     ephemeral_queue_not_found.
//   - The raft membership (route_raft.go; API.md §9 names
//     /api/v1/raft/members and nothing more, and the official client has
//     no membership call): GET /api/v1/raft/members answers 200
//     {"node","leader","members":[{"nodeId","address"}],"removed":[ids]},
//     read linearizably (503 timeout or no_leader as a read). POST
//     /api/v1/raft/members/replace {"nodeId","newNodeId","address"?}
//     replaces a node whose data is lost or corrupted: it deletes nodeId
//     from the shard, then adds newNodeId at address (nodeId's when
//     absent), and answers 200 {"replaced":true, and the members' fields
//     after it}. The replacement is then started with
//     QUEEN_RAFT_NODE_ID=newNodeId, QUEEN_RAFT_JOIN=true and the same
//     QUEEN_RAFT_ADDRESS on an empty data directory, and catches up from
//     its peers. An id is never reused. 400 bad_request for a body
//     without both ids (1..2^31) or an address that is not host:port; 409
//     membership when newNodeId is or was a member, nodeId is not one,
//     nodeId is the answering node, or address is another member's; a 503
//     timeout leaves the outcome unknown, and asking again is safe (a
//     replace already done answers 200).
//   - Query strings of the admin routes read as pop's do: an empty value
//     is absent, the first of repeated values counts, unknown parameters
//     are ignored, and a malformed query string is 400.
//   - A request whose client went away is counted as 499 and not logged;
//     context.DeadlineExceeded is a 503 timeout.
//   - Metrics are labelled by method (unknown methods as "other"), route
//     pattern ("unmatched" for 404 no_such_route) and status; no series
//     carries a queue or a partition. queen_messages_total is labelled by
//     event and tenant: tenant="" for the default tenant, the tenant's id
//     for any other, as the sink's series are (s3-sink.md, "Metrics").
//
// # Usage
//
//	reg := prometheus.NewRegistry()
//	h := httpd.New(broker, httpd.Options{
//		TenancyHeader: cfg.TenancyHeader,
//		Authenticators: []httpd.Authenticator{verifier}, // or none: no auth
//		SkipPaths:      []string{"/health", "/metrics/prometheus", "/metrics", "/"},
//		Logger:        log,
//		Registry:      reg,
//		Version:       version,
//	})
//	srv := &http.Server{Addr: ":6632", Handler: h}
//	err := srv.ListenAndServe()
package httpd

// Package contract holds the bounds of Queen's contract that every module
// shares: one table of the names that enter the broker and their rules,
// the range of every numeric parameter, the typed queue options with their
// defaults and ranges, a strict JSON checker for request bodies, and
// saturating time arithmetic. LIMITS.md renders all of it.
//
// # What it owns
//
//   - Names (names.go): tenant, queue, partition, consumer group,
//     transactionId, the queue's namespace and task, a KV namespace and
//     key, and the names of locks, timers and traces; each with its bounds
//     in bytes, its character rule and how a name over its bound is
//     answered. Name.Check is the one check of a name: the HTTP API calls
//     it when it decodes a request, and the state machine again where an
//     entry applies.
//   - Numbers (numbers.go, params.go): Range, the range of one input, with
//     Parse and ParseDecimal that refuse a fraction, a value beyond int64
//     and (unless the contract clamps it) a value outside the range; Micros,
//     MulSat, AddSat and SubSat, which saturate where a product or sum
//     would wrap.
//   - Queue options (queueopts.go): QueueOptionTable, NormalizeOptions
//     (configure's check), ParseQueueOptions (every reader's typed view of
//     stored options, inside their ranges whatever was stored) and
//     WithDefaults (the answer's view).
//   - The pushed record (push.go): PushItem, the one type of an item
//     from the HTTP decoder to the queue log's op (httpd.PushItem and
//     queuelog.PushItem are it).
//   - The KV call (kv.go, kv_check.go): KVOp, the one type of a KV op
//     from the HTTP decoder to the state machine (kvstore.Op is it), its
//     op names, bounds and kv_* reasons; CheckKVCall, the one check of a
//     call's values, whose *KVError carries a reason and a class
//     (TooLarge) but no HTTP status; KVNamespaceOf, the one place the
//     "namespace" alias of "ns" is resolved; KVOp.CheckNames, the
//     decoder's early check of the names an op gives.
//   - The KV answer (kv_answer.go, kv_answer_json.go): KVAnswer with its
//     KVResult and KVRow, the console's KVListAnswer and KVCounts, the one
//     type of an answer from the state machine to the HTTP body
//     (kvstore.Answer is it), and its JSON: API.md §5's shapes, with
//     timestamps rendered by FormatKVStamp.
//   - Bodies (json.go): CheckJSON, one pass over a body that refuses what
//     is not JSON, invalid UTF-8 (a lone surrogate's escape too) and
//     nesting past a limit, and names where it stopped ("items[3].payload");
//     the JSON number grammar it reads is the one IsJSONNumber and
//     JSONNumberEnd (for httpd's push scanner) read too (json_number.go),
//     and its white space, literals and \u digits are the ones
//     JSONSpaceEnd, JSONLiteralEnd and JSONHex4 read (json_tokens.go).
//   - Error text: Clip, Quote and ClipArgs keep a refused value to
//     ClipBytes in a message.
//
// contract imports only the standard library, so that every module of the
// workspace may import it: httpd (which imports no other module of ours),
// raftlog, kvstore and queen.
//
// # Invariants
//
// A name is its bytes. No check trims, folds case or replaces a byte, and
// every name that passes Check is valid UTF-8, so two names are the same
// name exactly when their bytes are equal (before, distinct invalid UTF-8
// ids collapsed into one through U+FFFD).
//
// A body that passes CheckJSON decodes with encoding/json to strings that
// hold exactly its characters: no byte is replaced.
//
// ParseQueueOptions never returns a value outside its option's range, and
// every range of a span of time is far inside what µs in an int64 hold, so
// apply, retention and leases cannot overflow on any stored option.
//
// Everything here is deterministic and allocation-light: the state
// machine's appliers call Check and ParseQueueOptions inside apply.
//
// # Usage
//
//	if err := contract.Queue.Check("items[3].queue", name); err != nil {
//		var ne *contract.NameError // TooLong() → 413 name_too_long
//		...
//	}
//	n, err := contract.LeaseSeconds.ParseDecimal("leaseSeconds", r.URL.Query().Get("leaseSeconds"))
//	opts := contract.ParseQueueOptions(stored)
//	window := contract.Micros(opts.DedupWindowSeconds)
//	if err := contract.CheckJSON(body, contract.MaxJSONDepth); err != nil { … }
package contract

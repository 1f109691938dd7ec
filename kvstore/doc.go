// Package kvstore is Queen's replicated KV store (API.md §5), applied
// inside the raft state machine of raftlog.
//
// # What it owns
//
// Rows keyed by (tenant, namespace, key), each holding a JSON value, a
// version, an expiry and the stamp of its last write; the ops get, getMany,
// getPrefix, put (with expect), putIfAbsent, delete (with expect), incr
// and check; calls of up to 256 ops whose required ops make the call all
// or nothing (the fence that locks and the S3 sink build on); the binary
// call and answer codecs of the entry. kvstore is Go types and errors
// only: the op and the answer are contract's (Op is contract.KVOp, Answer
// contract.KVAnswer, whose JSON contract renders and httpd serves), and so
// are a call's rules and refusals: prepare runs contract.CheckKVCall,
// whose *contract.KVError carries a reason and a class (TooLarge) but no
// HTTP status, then normalizes the ops for the codec.
//
// A call travels as one raftlog op of kind OpKV (256) holding the tenant
// and every op. Appliers() registers its applier with
// raftlog.Host.StartShard; Store.Do runs calls; Encode and DecodeAnswer
// let a caller put a call in a command of its own beside other ops (a
// transaction: a required op that fails aborts the whole command).
//
// # Invariants
//
// Versions are the fencing token. One shard-wide counter, stored in the
// state machine under a key of its own and read and written through the
// entry's Txn, gives every row version: each write that stores a row
// takes the next value. So a key's versions are unique and strictly
// increasing, and never reused across a delete, an expiry, a restart or a
// change of leader: the counter is replicated state like the rows, and a
// delete resets nothing. Versions start at 1; expect 0 means "absent".
//
// Expiry is judged on the broker clock, never on a node's wall clock. A
// row whose expiresAt is at or before the stamp is absent: in apply the
// stamp is the entry's (raftlog.ApplyInfo.Stamp), in a read-only call the
// view's (raftlog.View.Stamp). updatedAt is the writing entry's stamp.
// Rows keep both as µs integers; contract.FormatKVStamp renders them.
//
// Apply is deterministic: what it writes and answers follows from the
// entry, its stamp and the state before it. It reads no clock, draws no
// random number, and never lets map order reach a write or an answer
// (getMany sorts its keys; scans run in key order). Values are compacted
// (json.Compact) and checked on the proposer, so apply only copies bytes.
//
// All or nothing: a call with a write is one raft entry, applied in one
// batch. A required op that is not applied returns raftlog.Abort, which
// drops every write of the entry, and the answer is not OK: it holds the
// failed op's index, its reason, and the current row's version and value
// (kv_precondition on the wire).
//
// # Keys
//
// 'K' | uvarint len | tenant | uvarint len | namespace | key holds a row,
// and 'k' 'v' the version counter (raftlog keeps 0x00 and Q P C R D N).
// 'k' 'n' holds each namespace's count of stored rows and 'k' 'x' the
// expiry index of the rows with a TTL (expiry.go): the leader's sweeps
// (SweepOp, DueSweeps) delete expired rows through it, on the broker
// clock, and Namespaces counts live keys exactly without scanning a
// namespace. A store written before them gets both when it opens
// (UpgradeStore).
// The length prefixes make the rows of one (tenant, namespace) a key
// prefix, so getPrefix is a Pebble prefix scan in key byte order.
//
// # Decisions the contract left open
//
//   - A write result describes the row as it stands after the op: a
//     delete that applied answers version 0 and no value; a write that
//     lost answers the current row's (nil and 0 when there is none).
//   - check writes nothing, so a call of reads and checks is a read.
//   - incr needs delta (kv_bad_delta otherwise) and an expiry like put;
//     a missing or expired row counts as 0; bounds are inclusive and
//     checked on the result; min above max is kv_bad_bounds.
//   - delete with expect 0 is kv_bad_expect: it could never delete.
//   - ttlSeconds and forever together are kv_expiry_not_specified
//     ("exactly one"); ttlSeconds above 100 years is kv_bad_ttl.
//   - A missing value or one that is not JSON is kv_bad_value.
//   - A key or value too large is the TooLarge class (Reason
//     kv_key_too_large or kv_value_too_large), which httpd.KVRefusal
//     answers apart from a call of the wrong shape.
//   - getMany reads each distinct key once. The 4 MiB read budget counts
//     keys and values read: get always answers, getMany and getPrefix
//     stop and say truncated when the next row would not fit (getMany's
//     unread keys are in neither rows nor missing). getPrefix rows with
//     keysOnly keep version and timestamps but not the value.
//   - A delete that meets an expired row answers absent and removes it.
//     Expired rows nobody touches stay on disk until written or deleted.
//   - A row that never expires has ExpiresAt 0 (rendered
//     "expiresAt": null).
//
// # Exact decimals
//
// incr adds with github.com/cockroachdb/apd/v3 (the reason for that
// require line of go.mod is kept here): an arbitrary-precision decimal
// library that CockroachDB maintains and runs in production, with no
// dependencies of its own. Binary floats would make 0.1 + 0.2 read
// 0.30000000000000004; apd's context of precision 0 never rounds, so it
// is 0.3, and its bounded exponent range keeps any sum to a few hundred
// thousand digits. A sum is rendered without an
// exponent when neither the value nor delta had one; a sum apd cannot
// represent, or longer than a value may be, is reason limit.
//
// # Usage
//
//	host, _ := raftlog.NewHost(cfg)
//	shard, _ := host.StartShard(1, kvstore.Appliers())
//	kv := kvstore.New(shard)
//	ttl, token := int64(30), int64(lockVersion) // the version the lock row was written at
//	ans, err := kv.Do(ctx, tenant, []kvstore.Op{
//		{Op: kvstore.OpCheck, NS: "queen-locks", Key: "sink#0", Expect: &token, Required: true},
//		{Op: kvstore.OpPut, NS: "app", Key: "cursor", Value: json.RawMessage(`{"at":42}`), TTLSeconds: &ttl},
//	})
//	switch {
//	case err != nil: // *contract.KVError (refused), or raftlog's (ErrTimeout: outcome unknown)
//	case !ans.OK: // ans.FailedIndex, ans.KVReason: nothing was written
//	default: // ans.Results[1].Version is the new fencing token
//	}
package kvstore

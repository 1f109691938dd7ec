package kvstore

import "github.com/queen-mq/queen-go/contract"

// The op names of API.md §5, as they appear in Op.Op and Result.Op
// (contract's).
const (
	OpGet         = contract.KVGet
	OpGetMany     = contract.KVGetMany
	OpGetPrefix   = contract.KVGetPrefix
	OpPut         = contract.KVPut
	OpPutIfAbsent = contract.KVPutIfAbsent
	OpDelete      = contract.KVDelete
	OpIncr        = contract.KVIncr
	OpCheck       = contract.KVCheck
)

// The reasons a write or a check was not applied (Result.Reason,
// Answer.KVReason).
const (
	ReasonExists  = "exists"  // the key exists and the op needed it absent (expect 0, putIfAbsent)
	ReasonAbsent  = "absent"  // the key is absent (or expired) and the op needed it present
	ReasonVersion = "version" // the key is at another version than expect
	ReasonLimit   = "limit"   // incr: the result would fall outside [min, max], or cannot be represented
	ReasonType    = "type"    // incr: the current value is not a JSON number
)

// Op is one KV operation of a call: contract.KVOp, the type the HTTP API
// decodes a call into, with its rules (contract.CheckKVCall).
type Op = contract.KVOp

// Answer is what a call answered: contract.KVAnswer, the type the HTTP
// API renders (its JSON is contract's). When OK, Results holds one Result
// per op in order; when a required op was not applied, OK is false,
// nothing of the call was written, and FailedIndex, KVReason, Version and
// Value say which op, why, and the current row's. Stamp is the broker
// clock the call was judged on.
type Answer = contract.KVAnswer

// Result is one op's answer (contract.KVResult): which fields count
// depends on its Op, as contract.KVResult says.
type Result = contract.KVResult

// Row is one row of a getMany or getPrefix result (contract.KVRow); Value
// is nil for a getPrefix with KeysOnly.
type Row = contract.KVRow

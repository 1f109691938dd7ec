package kvstore

import (
	"encoding/json"

	"github.com/queen-mq/queen-go/contract"
)

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

// Answer is what a call answered. When OK, Results holds one Result per op
// in order. When a required op was not applied, OK is false, nothing of the
// call was written, and the Failed* fields say which op and why.
type Answer struct {
	OK      bool
	Results []Result
	// Reason is "kv_precondition" when OK is false.
	Reason string
	// FailedIndex is the index of the required op that was not applied,
	// KVReason its reason (exists, absent, version, limit, type), Version
	// and Value the current row's (0 and nil when there is none).
	FailedIndex int
	KVReason    string
	Version     uint64
	Value       json.RawMessage
	// Stamp is the broker clock the call was judged on (µs): the stamp of
	// its entry, or of the view a read-only call read.
	Stamp int64
}

// ReasonPrecondition is Answer.Reason when a required op was not applied.
const ReasonPrecondition = "kv_precondition"

// Result is one op's answer. Which fields count depends on Op:
//
//   - get: Found; when found Value, Version, ExpiresAt, UpdatedAt.
//   - getMany: Rows (in key byte order), Missing, Truncated.
//   - getPrefix: Rows, Truncated, NextAfter.
//   - put, putIfAbsent, delete, incr, check: Applied, Reason when not,
//     and Value and Version of the row as it stands after the op (the
//     current row's when not applied; nil and 0 when there is none, so a
//     delete that applied answers 0).
type Result struct {
	Index int
	Op    string
	Key   string

	Applied bool
	Reason  string

	Found bool
	// Value is JSON text; nil when there is none.
	Value   json.RawMessage
	Version uint64
	// ExpiresAt and UpdatedAt are broker-clock µs; ExpiresAt 0 means the
	// row never expires. FormatStamp renders them.
	ExpiresAt int64
	UpdatedAt int64

	Rows    []Row
	Missing []string
	// Truncated: getMany ran out of the call's read budget (the keys in
	// neither Rows nor Missing were not read), or getPrefix has more rows
	// after NextAfter ("" when it has none).
	Truncated bool
	NextAfter string
}

// Row is one row of a getMany or getPrefix result. Value is nil for a
// getPrefix with KeysOnly.
type Row struct {
	Key       string
	Value     json.RawMessage
	Version   uint64
	ExpiresAt int64
	UpdatedAt int64
}

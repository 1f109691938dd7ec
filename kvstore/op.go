package kvstore

import "encoding/json"

// The op names of API.md §5, as they appear in Op.Op and Result.Op.
const (
	OpGet         = "get"
	OpGetMany     = "getMany"
	OpGetPrefix   = "getPrefix"
	OpPut         = "put"
	OpPutIfAbsent = "putIfAbsent"
	OpDelete      = "delete"
	OpIncr        = "incr"
	OpCheck       = "check"
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

// Op is one KV operation of a call, field for field the JSON of API.md §5.
// Which fields count depends on Op; the others are ignored.
type Op struct {
	// Op is one of the Op* names: get, getMany, getPrefix, put, putIfAbsent,
	// delete, incr, check.
	Op string `json:"op"`
	// NS is the namespace: ^[a-z0-9][a-z0-9._-]{0,63}$.
	NS string `json:"ns"`
	// Key is the row's key: 1..512 bytes, no NUL. Every op but getMany and
	// getPrefix names one.
	Key string `json:"key,omitempty"`
	// Keys are getMany's keys.
	Keys []string `json:"keys,omitempty"`
	// Prefix, Limit, After and KeysOnly page a getPrefix: rows whose key
	// starts with Prefix (required) and sorts after After (exclusive), at
	// most Limit of them (0 means 100; clamped to 1..1000), without values
	// when KeysOnly.
	Prefix   string `json:"prefix,omitempty"`
	Limit    int    `json:"limit,omitempty"`
	After    string `json:"after,omitempty"`
	KeysOnly bool   `json:"keysOnly,omitempty"`
	// Value is put's and putIfAbsent's value: JSON text, stored compacted,
	// at most 64 KiB so. JSON null is a value; nil means none was given.
	Value json.RawMessage `json:"value,omitempty"`
	// Expiry of put, putIfAbsent and incr: exactly one of TTLSeconds (> 0)
	// or Forever. incr applies it only when it creates the row.
	TTLSeconds *int64 `json:"ttlSeconds,omitempty"`
	Forever    bool   `json:"forever,omitempty"`
	// Expect is the version the row must be at: nil for none, 0 for
	// "absent", N > 0 for "at version N" (a put never creates then).
	// Mandatory for check; 0 or nil for putIfAbsent; refused on incr.
	Expect *int64 `json:"expect,omitempty"`
	// Required makes a write or check that is not applied roll back the
	// whole call: nothing of it is written.
	Required bool `json:"required,omitempty"`
	// Delta, Min and Max are incr's JSON numbers; Min and Max are optional
	// inclusive bounds of the result ("" for none).
	Delta json.Number `json:"delta,omitempty"`
	Min   json.Number `json:"min,omitempty"`
	Max   json.Number `json:"max,omitempty"`
}

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

package contract

import (
	"encoding/json"
	"time"
)

// KVReasonPrecondition is the answer's reason when a required op of a KV
// call was not applied (the call wrote nothing): API.md §5's
// kv_precondition, in a call's answer and in a transaction's.
const KVReasonPrecondition = "kv_precondition"

// KVAnswer is what a KV call answered: the one type from the state machine
// (kvstore, whose Answer it is) to the HTTP answer (kv_answer_json.go
// renders it). When OK, Results holds one KVResult per op in order. When a
// required op was not applied, OK is false, nothing of the call was
// written, and the Failed* fields say which op and why (the answer's
// reason is KVReasonPrecondition).
type KVAnswer struct {
	OK      bool
	Results []KVResult
	// FailedIndex is the index of the required op that was not applied,
	// KVReason its reason (exists, absent, version, limit, type), Version
	// and Value the current row's (0 and nil when there is none).
	FailedIndex int
	KVReason    string
	Version     uint64
	Value       json.RawMessage
	// Stamp is the broker clock the call was judged on (µs): the stamp of
	// its entry, or of the view a read-only call read. It is not rendered.
	Stamp int64
}

// KVResult is one op's answer. Which fields count depends on Op:
//
//   - get: Found; when found Value, Version, ExpiresAt, UpdatedAt.
//   - getMany: Rows (in key byte order), Missing, Truncated.
//   - getPrefix: Rows, Truncated, NextAfter.
//   - put, putIfAbsent, delete, incr, check: Applied, Reason when not,
//     and Value and Version of the row as it stands after the op (the
//     current row's when not applied; nil and 0 when there is none, so a
//     delete that applied answers 0).
type KVResult struct {
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
	// row never expires. FormatKVStamp renders them.
	ExpiresAt int64
	UpdatedAt int64

	Rows    []KVRow
	Missing []string
	// Truncated: getMany ran out of the call's read budget (the keys in
	// neither Rows nor Missing were not read), or getPrefix has more rows
	// after NextAfter ("" when it has none).
	Truncated bool
	NextAfter string
}

// KVRow is one row of a getMany or getPrefix result. Value is nil for a
// getPrefix with KeysOnly.
type KVRow struct {
	Key       string
	Value     json.RawMessage
	Version   uint64
	ExpiresAt int64
	UpdatedAt int64
}

// KVListRow is one row of a console page (KVListAnswer): Expired when the
// row is past its TTL and the sweep has not deleted it yet.
type KVListRow struct {
	KVRow
	Expired bool
}

// KVListAnswer is one page of a namespace's rows for the console (POST
// /api/v1/resources/kv/list): Truncated when more rows follow (the next
// page starts after NextAfter), Bytes the keys' and values' bytes.
type KVListAnswer struct {
	Rows      []KVListRow
	Truncated bool
	NextAfter string
	Bytes     int64
}

// KVNamespaceCount is one namespace of a tenant and how many live keys it
// holds.
type KVNamespaceCount struct {
	Namespace string
	Keys      int64
}

// FormatKVStamp renders a broker-clock stamp (µs since the epoch) as API.md
// §5 shows KV timestamps: UTC, the fraction's trailing zeros trimmed (and
// its dot with them), and an explicit +00:00, like
// 2026-09-22T10:15:30.1234+00:00.
func FormatKVStamp(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.999999") + "+00:00"
}

package httpd

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/queen-mq/queen-go/contract"
)

// Broker is what the HTTP API serves. httpd owns the routes, the JSON and
// the mapping of errors to statuses; the broker behind it (queen adapts
// raftlog and kvstore) owns the meaning. Every method takes the caller's
// context, whose deadline is the request's.
//
// Error contract, for every method: an error wrapping ErrTimeout,
// ErrNoLeader or ErrRetry is a 503 with that kind and Retry-After: 1 (the
// outcome of a write is unknown: the client retries with the same ids); an
// *Error is answered as it says; anything else is a 500 internal.
type Broker interface {
	// Push appends items (queue and partition already defaulted, message
	// ids chosen) as one entry and answers each in order.
	Push(ctx context.Context, tenant string, items []PushItem) ([]PushResult, error)
	// Fetch reads records by offset from this node's applied state, parking
	// up to req.MaxWait for req.MinBytes when asked to.
	Fetch(ctx context.Context, tenant string, req FetchRequest) ([]FetchEntry, error)
	// FetchOffsets finds, per entry, the first offset at or after a time.
	FetchOffsets(ctx context.Context, tenant string, entries []OffsetQuery) ([]OffsetAnswer, error)
	// PartitionsChanged pages the partitions of queues written since a time.
	PartitionsChanged(ctx context.Context, tenant string, entries []ChangedQuery) (ChangedAnswer, error)
	// Configure stores a queue's options (merge or replace).
	Configure(ctx context.Context, tenant string, req ConfigureRequest) (ConfigureAnswer, error)
	// KV runs one KV call; the answer is marshalled as the response body.
	// Validation errors are *Error with the contract's codes.
	KV(ctx context.Context, tenant string, ops []KVOp) (json.Marshaler, error)
	// Queues lists a tenant's queues; Queue describes one (ok false: none).
	Queues(ctx context.Context, tenant string) ([]QueueSummary, error)
	Queue(ctx context.Context, tenant, name string) (QueueDetail, bool, error)
	// Health is GET /health: ready is false while the node settles. body
	// must marshal to a JSON object (e.g. {"raft":{…}}) or be nil: its
	// members follow status, engine and version in the answer.
	Health(ctx context.Context) (ready bool, body any)
	// Status is GET /status: body is marshalled as the answer.
	Status(ctx context.Context) any
}

// The unknown-outcome kinds of a 503 (API.md §0).
var (
	ErrTimeout  = errors.New("timeout")
	ErrNoLeader = errors.New("no_leader")
	ErrRetry    = errors.New("retry")
)

// Error is an answer the contract names: its status, code and message, and
// for KV errors the reason and detail.
//
// An Error with a Reason is answered in the KV shape
// {"error":Code,"reason":Reason,"detail":Detail}; any other in the engine
// shape {"error":Message,"code":Code} (plus "leader" when Leader is set).
// A 503 or 429 carries Retry-After: 1.
type Error struct {
	Status  int
	Code    string
	Message string
	Reason  string // KV: kv_… reason
	Detail  string // KV: what was wrong
	// Leader is the leader hint of a 503 retry ("" when unknown).
	Leader string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// DefaultTenant is the tenant of a request without tenancy.
const DefaultTenant = "00000000-0000-0000-0000-000000000001"

// SystemTenant is the control plane's own tenant (the nil UUID): its rows
// live in the replicated KV beside the tenants' data, and no data-plane
// request can name it: the tenancy header refuses it (400 bad_request).
const SystemTenant = "00000000-0000-0000-0000-000000000000"

// PushItem is one item of POST /api/v1/push, with its defaults filled in
// (contract.PushItem, the one type of a pushed record): ProducerSub is
// the request's credential's subject, and Strict is the broker's to set.
type PushItem = contract.PushItem

// PushResult answers one PushItem. A duplicate answers the original
// message's id and offset. Error, when not "", says why this item was not
// stored (status "error"; Offset is then not rendered).
type PushResult struct {
	Duplicate bool
	Offset    int64
	MessageID [16]byte
	Error     string
}

// FetchRequest is POST /api/v1/fetch, validated and defaulted: 0..1024
// entries, MaxWaitMs in 0..30000 (0: answer at once), MinBytes ≥ 0 (0:
// never park; each record counts at least one byte).
type FetchRequest struct {
	Entries   []FetchQuery
	MaxWaitMs int
	MinBytes  int
}

// FetchQuery is one entry of a fetch: Offset ≥ 0, MaxBytes in 1..8 MiB.
type FetchQuery struct {
	Queue, Partition string
	Offset           int64
	MaxBytes         int
}

// FetchEntry answers one FetchQuery, index-aligned.
type FetchEntry struct {
	Queue, Partition string
	Records          []FetchRecord
	HighWatermark    int64
	LogStartOffset   int64
	// Error is UNKNOWN_TOPIC_OR_PARTITION or OFFSET_OUT_OF_RANGE, or "".
	Error string
}

// FetchRecord is one record of a FetchEntry.
type FetchRecord struct {
	Offset        int64
	TransactionID string
	Payload       []byte // JSON text as stored, written out as is; empty: null
	Ts            int64  // µs
	// ProducerSub is the subject the record was pushed with ("": none,
	// and the answer has no producerSub member).
	ProducerSub string
}

// OffsetQuery is one entry of POST /api/v1/fetch/offsets.
type OffsetQuery struct {
	Queue, Partition string
	Ts               int64 // µs
}

// OffsetAnswer answers one OffsetQuery; Found false renders offset and ts null.
type OffsetAnswer struct {
	Queue, Partition string
	Found            bool
	Offset, Ts       int64
	HighWatermark    int64
	LogStartOffset   int64
	Error            string
}

// ChangedQuery is one entry of POST /api/v1/partitions/changed.
type ChangedQuery struct {
	Queue string
	Since *int64 // µs; nil: all
	After string // opaque cursor from a previous page; "" first page
	Limit int    // 1..1000
}

// ChangedAnswer is the answer of partitions/changed.
type ChangedAnswer struct {
	SafeTime int64 // µs
	Entries  []ChangedEntry
}

// ChangedEntry answers one ChangedQuery.
type ChangedEntry struct {
	Queue      string
	Partitions []ChangedPartition
	Next       string // "" when there is no next page
	Error      string // UNKNOWN_TOPIC_OR_PARTITION or BAD_CURSOR, or ""
}

// ChangedPartition is one partition of a ChangedEntry.
type ChangedPartition struct {
	Name       string
	ID         [16]byte
	LastOffset int64
	LogStart   int64
	LastWrite  int64 // µs
}

// ConfigureRequest is POST /api/v1/configure, validated. Options is a
// JSON object, keys sorted: the known options type-checked and normalized
// (integers as integers, minPopWaitTime clamped to 0..60000), a null meaning
// "restore the default", unknown keys passed through as sent. Replace is
// mode "replace"; false is "merge" (absent keys kept).
type ConfigureRequest struct {
	Queue   string
	Options json.RawMessage
	Replace bool
}

// ConfigureAnswer is what configure answers.
type ConfigureAnswer struct {
	QueueID   [16]byte
	Queue     string
	Namespace string
	Task      string
	// Options holds every option with its value, defaults included.
	Options json.RawMessage
}

// KVOp is one op of a KV call: contract.KVOp, the one type from the
// decoder to the state machine. httpd has checked the JSON types of its
// fields and the names it gives, not its values (the broker checks them
// with contract.CheckKVCall and answers *contract.KVError, which
// KVRefusal maps). NS is resolved from "ns" or "namespace"
// (contract.KVNamespaceOf). Value is nil when absent and "null" for JSON
// null.
type KVOp = contract.KVOp

// QueueSummary is one queue of GET /api/v1/resources/queues.
type QueueSummary struct {
	ID             [16]byte
	Name           string
	Namespace      string
	Task           string
	Created        int64 // µs
	PartitionCount uint64
}

// QueueDetail is GET /api/v1/resources/queues/:queue. Options are the
// stored options (httpd adds the defaults of the keys it lacks);
// Partitions are in creation order, each with LastOffset -1 when empty and
// LastWrite 0 when never written. httpd sums the totals from them.
type QueueDetail struct {
	QueueSummary
	Options    json.RawMessage
	Partitions []ChangedPartition
}

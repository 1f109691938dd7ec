package s3sink

import (
	"context"
	"errors"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/s3sink/kvdoc"
)

// Log is the broker's queue log as the sink reads it: this node's applied
// state, through the same calls as POST /api/v1/fetch and
// /api/v1/partitions/changed. Reads take no lease and move no cursor.
//
// Error contract: ErrQueueNotFound when the tenant has no such queue;
// ErrOffsetOutOfRange from Fetch when the offset is below the partition's
// log start (retention deleted it; the result's LogStart says where the log
// begins now); any other error is transient (the sink backs off).
type Log interface {
	// Partitions pages the partitions of a queue last written at or after
	// since (µs; math.MinInt64 for all), in creation order, after the
	// cursor after ("" for the first page). It answers this node's
	// safeTime at the read: every record stamped below it is readable now.
	Partitions(ctx context.Context, tenant, queue string, since int64, after string, limit int) (PartitionPage, error)
	// Fetch reads a partition's records from offset, up to maxBytes of
	// payload (the first record always).
	Fetch(ctx context.Context, tenant, queue, partition string, offset int64, maxBytes int) (FetchResult, error)
	// OffsetAt returns the first offset of a partition stamped at or after
	// ts, or its high watermark when there is none.
	OffsetAt(ctx context.Context, tenant, queue, partition string, ts int64) (int64, error)
	// Queues lists a tenant's queues, for QUEEN_S3_QUEUES=*.
	Queues(ctx context.Context, tenant string) ([]string, error)
	// SafeTime returns this node's safeTime (µs).
	SafeTime(ctx context.Context) (int64, error)
}

// PartitionPage is one page of Log.Partitions.
type PartitionPage struct {
	Partitions []PartitionInfo
	Next       string // "" on the last page
	SafeTime   int64  // µs
}

// PartitionInfo describes one partition.
type PartitionInfo struct {
	Name       string
	ID         string // its incarnation's UUID
	LastOffset int64  // -1 when empty
	LogStart   int64
	LastWrite  int64 // µs
}

// FetchResult is what Log.Fetch answers. Records are the lake's records
// as the log reads them, in offset order from the offset asked, each
// whole: Partition is the partition read, Ts the stamp of the entry that
// pushed it (µs), Payload as stored (opened when the queue is
// encrypted; empty when none). The sink writes them as they are.
type FetchResult struct {
	Records       []lakeformat.Record
	HighWatermark int64
	LogStart      int64
}

// The classes of Log errors the sink branches on.
var (
	ErrQueueNotFound    = errors.New("s3sink: queue not found")
	ErrOffsetOutOfRange = errors.New("s3sink: offset below the log start")
)

// KV is the tenant's replicated KV store, namespace queen-s3, where the
// sink keeps its three documents per queue (lease, intent, committed) and a
// presence row per node.
//
// Error contract: a Batch whose required op failed answers OK false with
// nothing written; any error is transient (the outcome of a write that
// errs is unknown: the sink re-reads before it writes again).
type KV interface {
	// Get reads keys; an absent (or expired) key is a Row with Found false.
	Get(ctx context.Context, tenant, ns string, keys []string) ([]Row, error)
	// Batch runs ops as one KV call: one raft entry, all or nothing when a
	// Required op fails.
	Batch(ctx context.Context, tenant, ns string, ops []KVOp) (BatchResult, error)
	// Prefix pages the rows whose key starts with prefix, after the key
	// after, at most limit of them; next is "" on the last page.
	Prefix(ctx context.Context, tenant, ns, prefix, after string, limit int) (rows []Row, next string, err error)
}

// Row is one KV row.
type Row struct {
	Key     string
	Found   bool
	Value   []byte // JSON text
	Version int64
}

// KVOpKind is what a KVOp does.
type KVOpKind int

// The ops the sink uses.
const (
	KVPut KVOpKind = iota + 1
	KVPutIfAbsent
	KVDelete
	// KVCheck writes nothing: it asserts the row is at Expect (0: absent).
	// The broker's retention fences its lost notes with it (NoteOps).
	KVCheck
)

// KVOp is one write of a Batch.
type KVOp struct {
	Kind  KVOpKind
	Key   string
	Value []byte // JSON text
	// TTL is the row's lifetime on the broker clock; 0 keeps it forever.
	TTL time.Duration
	// Expect is the version the row must be at (0: absent); nil for none.
	Expect *int64
	// Required rolls the whole batch back when this op is not applied.
	Required bool
}

// BatchResult is what a Batch answered.
type BatchResult struct {
	// OK is false when a Required op was not applied: nothing was written,
	// and FailedIndex names the op.
	OK          bool
	FailedIndex int
	Results     []OpResult
}

// OpResult is one op's outcome.
type OpResult struct {
	Applied bool
	Reason  string // why not: exists, absent, version
	// Version and Value are the row's after the op (the winner's on a loss).
	Version int64
	Value   []byte
}

// Namespace is the KV namespace of the sink's documents (kvdoc names
// them).
const Namespace = kvdoc.Namespace

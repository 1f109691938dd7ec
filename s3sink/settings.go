package s3sink

import (
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
)

// Settings are one sink's settings (SINK-CONFIG.md §2b): from the
// environment for the default tenant, from a control-plane document for
// another tenant, with the same defaults and ranges.
type Settings struct {
	// Queues are the queues mirrored; AllQueues (QUEEN_S3_QUEUES=*) takes
	// every queue of the tenant, listed again every ten discovery intervals.
	Queues    []string
	AllQueues bool

	// Where the bucket is.
	Endpoint  string // http:// or https:// + host[:port], no path
	Region    string
	Bucket    string
	AccessKey string
	SecretKey string // never logged, never returned
	PathStyle bool
	// SSE is "", "AES256" or "aws:kms"; SSEKMSKeyID only with aws:kms.
	SSE         string
	SSEKMSKeyID string

	// What is written.
	Prefix       string // key root, outer '/' stripped (default "queen")
	Format       lakeformat.Format
	Compression  lakeformat.Codec // JSONL's codec: zstd, gzip or none
	ParquetCodec lakeformat.Codec // Parquet's page codec: zstd or snappy
	Layout       lakeformat.Layout
	Align        lakeformat.Align
	// StartEarliest reads a queue with no commit pointer from its first
	// record; otherwise from the moment the sink first finds it (latest).
	StartEarliest bool
	// TargetBytes of uncompressed records close a window; MaxWindow is the
	// longest a window stays open on the broker's clock.
	TargetBytes int64
	MaxWindow   time.Duration
	// Sink names the KV documents (s3:<sink>:…) and what retentionSinkHold
	// refers to; it is not in object keys.
	Sink string
}

// Codec returns the codec objects are written with: Compression for
// JSONL, ParquetCodec for Parquet.
func (s *Settings) Codec() lakeformat.Codec {
	if s.Format == lakeformat.Parquet {
		return s.ParquetCodec
	}
	return s.Compression
}

// NodeSettings are shared by every sink of a node (SINK-CONFIG.md §2a and
// §2c): environment only.
type NodeSettings struct {
	Threads            int           // QUEEN_S3_THREADS: sink workers
	ShutdownGrace      time.Duration // QUEEN_S3_SHUTDOWN_GRACE_MS: drain budget from SIGTERM
	MemoryBytes        int64         // QUEEN_S3_MEMORY_MB: one buffer budget for all queues
	FetchConcurrency   int           // QUEEN_S3_FETCH_CONCURRENCY: in-flight log reads per queue
	DiscoveryInterval  time.Duration // QUEEN_S3_DISCOVERY_INTERVAL_MS
	SafeGuard          time.Duration // QUEEN_S3_SAFE_GUARD_MS: subtracted from safeTime before a close
	LeaseTTL           time.Duration // QUEEN_S3_LEASE_TTL_MS: queue lease and presence TTL
	MultipartThreshold int64         // QUEEN_S3_MULTIPART_THRESHOLD_MB, bytes: above it, multipart
	CheckpointEvery    int           // QUEEN_S3_CHECKPOINT_EVERY: windows between checkpoints
	Instance           string        // QUEEN_S3_INSTANCE: the lease identity, /node-<id> suffixed
	CrashAt            CrashPoint    // QUEEN_S3_CRASH_AT: test-only abort point
}

// CrashPoint is where QUEEN_S3_CRASH_AT aborts the broker, for tests of
// the commit sequence.
type CrashPoint string

// The crash points, in the order of the commit sequence.
const (
	CrashNever        CrashPoint = "never"
	CrashAfterIntent  CrashPoint = "after_intent"
	CrashMidUpload    CrashPoint = "mid_upload"
	CrashAfterUpload  CrashPoint = "after_upload"
	CrashBeforeCommit CrashPoint = "before_commit"
	CrashAfterCommit  CrashPoint = "after_commit"
)

// DefaultTenant is the tenant whose sink the environment configures.
const DefaultTenant = "00000000-0000-0000-0000-000000000001"

package s3sink

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
)

// The per-sink settings (SINK-CONFIG.md §2b), in the order of the table:
// the order they are read in, and so which refusal a boot reports first.
var (
	cfQueues = &confField{env: "QUEEN_S3_QUEUES", doc: "queues", kind: "a queue list",
		what:    "the queues the sink mirrors, * for every queue or names separated by commas, none empty",
		docWhat: "the queues the sink mirrors, * for every queue, names separated by commas, or a JSON array of names, none empty and no * inside an array"}
	cfEndpoint = &confField{env: "QUEEN_S3_ENDPOINT", doc: "endpoint", kind: "an S3 endpoint",
		what: "the S3 API base URL, http:// or https:// then host[:port], with no path"}
	cfRegion = &confField{env: "QUEEN_S3_REGION", doc: "region", kind: "a region",
		what: "the region requests are signed for (SigV4), such as us-east-1, with no / and no space"}
	cfBucket = &confField{env: "QUEEN_S3_BUCKET", doc: "bucket", kind: "a bucket name",
		what: "the bucket the sink writes to, with no / and no space"}
	cfAccessKey = &confField{env: "QUEEN_S3_ACCESS_KEY", doc: "accessKey",
		what: "the access key id the sink signs requests with"}
	cfSecretKey = &confField{env: "QUEEN_S3_SECRET_KEY", doc: "secretKey",
		what: "the secret access key the sink signs requests with"}
	cfPrefix = &confField{env: "QUEEN_S3_PREFIX", doc: "prefix", kind: "a key prefix",
		what: "the root of every key the sink writes, sidecars included, as segments separated by /, with no space, none of them empty, . or .."}
	cfPathStyle = &confField{env: "QUEEN_S3_PATH_STYLE", doc: "pathStyle",
		what: "whether the bucket goes in the URL path rather than in the host name"}
	cfSSE = &confField{env: "QUEEN_S3_SSE", doc: "sse", kind: "a server-side encryption",
		accepted: "AES256, aws:kms (kms)", what: "the server-side encryption every upload asks for"}
	cfSSEKMSKeyID = &confField{env: "QUEEN_S3_SSE_KMS_KEY_ID", doc: "sseKmsKeyId",
		what: "the KMS key of aws:kms encryption"}
	cfFormat = &confField{env: "QUEEN_S3_FORMAT", doc: "format", kind: "a format",
		accepted: "jsonl (json, ndjson), parquet", what: "the format of the objects"}
	cfCompression = &confField{env: "QUEEN_S3_COMPRESSION", doc: "compression", kind: "a compression",
		accepted: "zstd (zst), gzip (gz), none (off)", what: "the codec of JSONL objects"}
	cfParquetCodec = &confField{env: "QUEEN_S3_PARQUET_CODEC", doc: "parquetCodec", kind: "a Parquet codec",
		accepted: "zstd (zst), snappy (snap)", what: "the page codec of Parquet objects"}
	cfLayout = &confField{env: "QUEEN_S3_LAYOUT", doc: "layout", kind: "a layout",
		accepted: "merged, per-partition (per_partition, perpartition)", what: "one object per window, or one per window and partition"}
	cfAlign = &confField{env: "QUEEN_S3_ALIGN", doc: "align", kind: "an alignment",
		accepted: "hour (hourly), day (daily), none (off)", what: "the boundary no window crosses"}
	cfStart = &confField{env: "QUEEN_S3_START", doc: "start", kind: "a start",
		accepted: "latest (now, end), earliest (beginning)", what: "where the sink starts a queue that has no commit pointer"}
	cfTargetMB = &confField{env: "QUEEN_S3_TARGET_MB", doc: "targetMb", lo: 1, hi: 5120, unit: mib,
		what: "the uncompressed size, in MiB, at which a window closes"}
	cfMaxWindowMs = &confField{env: "QUEEN_S3_MAX_WINDOW_MS", doc: "maxWindowMs", lo: 100, hi: 86_400_000, unit: millis,
		what: "how long a window may stay open; the lag SLO is about this plus the safe lag"}
	cfSink = &confField{env: "QUEEN_S3_SINK", doc: "sink", kind: "a sink name",
		what: "1 to 64 characters of A-Z a-z 0-9 . _ -, naming the sink's KV documents and what retentionSinkHold refers to"}
)

// confSinkFields are the per-sink settings a document may carry, and the
// variables whose presence without QUEEN_S3_QUEUES stops the boot.
var confSinkFields = []*confField{
	cfQueues, cfEndpoint, cfRegion, cfBucket, cfAccessKey, cfSecretKey, cfPrefix, cfPathStyle, cfSSE, cfSSEKMSKeyID,
	cfFormat, cfCompression, cfParquetCodec, cfLayout, cfAlign, cfStart, cfTargetMB, cfMaxWindowMs, cfSink,
}

// DefaultSettings returns a sink's defaults (SINK-CONFIG.md §2b). The
// required settings (queues, endpoint, region, bucket and the keys) are
// left empty.
func DefaultSettings() Settings {
	return Settings{
		Prefix:       "queen",
		Format:       lakeformat.JSONL,
		Compression:  lakeformat.Zstd,
		ParquetCodec: lakeformat.Zstd,
		Layout:       lakeformat.Merged,
		Align:        lakeformat.AlignHour,
		TargetBytes:  128 * mib,
		MaxWindow:    300_000 * time.Millisecond,
		Sink:         "default",
	}
}

var (
	confSSEs         = map[string]string{"aes256": "AES256", "aws:kms": "aws:kms", "kms": "aws:kms"}
	confCompressions = map[lakeformat.Codec]bool{lakeformat.Zstd: true, lakeformat.Gzip: true, lakeformat.None: true}
	confPageCodecs   = map[lakeformat.Codec]bool{lakeformat.Zstd: true, lakeformat.Snappy: true}
	confStarts       = map[string]bool{"latest": false, "now": false, "end": false, "earliest": true, "beginning": true}
)

// confOnly narrows a lakeformat parser to some of its values.
func confOnly[T comparable](parse func(string) (T, error), allowed map[T]bool) func(string) (T, bool) {
	return func(s string) (T, bool) {
		v, err := parse(s)
		return v, err == nil && (allowed == nil || allowed[v])
	}
}

// confSink reads one sink's settings through p, the secret key only
// withSecret: defaults first, each setting checked as it is read. The
// caller sees p.err.
func confSink(p *confParser, withSecret bool) *Settings {
	s := DefaultSettings()
	s.AllQueues, s.Queues = p.queues()
	s.Endpoint = p.requiredChecked(cfEndpoint, confCheckEndpoint)
	s.Region = p.requiredChecked(cfRegion, confCheckRegion)
	s.Bucket = p.requiredChecked(cfBucket, confCheckBucket)
	s.AccessKey = p.required(cfAccessKey)
	if withSecret {
		s.SecretKey = p.required(cfSecretKey)
	}
	s.Prefix = p.checked(cfPrefix, s.Prefix, confCheckPrefix)
	s.PathStyle = p.bool(cfPathStyle, s.PathStyle)
	s.SSE = confEnum(p, cfSSE, "", confLookup(confSSEs))
	if kid, ok := p.str(cfSSEKMSKeyID); ok {
		if s.SSE != "aws:kms" && p.err == nil {
			p.fail(cfSSEKMSKeyID, "%s", confKMSAlone(p.name(cfSSEKMSKeyID), p.name(cfSSE), s.SSE))
		}
		s.SSEKMSKeyID = kid
	}
	s.Format = confEnum(p, cfFormat, s.Format, confOnly(lakeformat.ParseFormat, nil))
	s.Compression = confEnum(p, cfCompression, s.Compression, confOnly(lakeformat.ParseCodec, confCompressions))
	s.ParquetCodec = confEnum(p, cfParquetCodec, s.ParquetCodec, confOnly(lakeformat.ParseCodec, confPageCodecs))
	s.Layout = confEnum(p, cfLayout, s.Layout, confOnly(lakeformat.ParseLayout, nil))
	s.Align = confEnum(p, cfAlign, s.Align, confOnly(lakeformat.ParseAlign, nil))
	s.StartEarliest = confEnum(p, cfStart, s.StartEarliest, confLookup(confStarts))
	s.TargetBytes = p.num(cfTargetMB, s.TargetBytes, true)
	s.MaxWindow = time.Duration(p.num(cfMaxWindowMs, int64(s.MaxWindow), false))
	s.Sink = p.checked(cfSink, s.Sink, confCheckSink)
	return &s
}

// queues reads QUEEN_S3_QUEUES (required), or a document's queues: a
// string as the variable, or a JSON array of names.
func (p *confParser) queues() (all bool, queues []string) {
	r := p.get(cfQueues)
	if !r.set {
		p.fail(cfQueues, "%s is not set: it is %s", p.name(cfQueues), p.what(cfQueues))
		return false, nil
	}
	var ok bool
	switch r.kind {
	case 'e', 's':
		all, queues, ok = confQueueList(r.text)
	case 'a':
		queues, ok = confQueueArray(r.text)
	}
	if !ok {
		p.fail(cfQueues, "%s=%s is not %s. It is %s", p.name(cfQueues), p.show(r), cfQueues.kind, p.what(cfQueues))
		return false, nil
	}
	return all, queues
}

// Validate checks settings built by hand as ParseEnv and ParseDocument check
// what they read, SecretKey included; the error names the variable
// (QUEEN_S3_…), whatever the settings came from.
func (s *Settings) Validate() error {
	bad := func(f *confField, v any) error {
		what := f.what
		if f.accepted != "" {
			what = "one of " + f.accepted + ": " + what
		}
		return &ConfigError{Var: f.env, Msg: fmt.Sprintf("%s=%v is not %s. It is %s", f.env, v, f.kindOr(), what)}
	}
	unset := func(f *confField) error {
		return &ConfigError{Var: f.env, Msg: fmt.Sprintf("%s is not set: it is %s", f.env, f.what)}
	}
	switch {
	case s.AllQueues && len(s.Queues) > 0:
		return bad(cfQueues, "*,"+strings.Join(s.Queues, ","))
	case !s.AllQueues && len(s.Queues) == 0:
		return unset(cfQueues)
	}
	for i, q := range s.Queues {
		if !confCheckQueueName(q) || slices.Contains(s.Queues[:i], q) {
			return bad(cfQueues, strings.Join(s.Queues, ","))
		}
	}
	for _, c := range []struct {
		f     *confField
		v     string
		check func(string) (string, bool)
	}{
		{cfEndpoint, s.Endpoint, confCheckEndpoint}, {cfRegion, s.Region, confCheckRegion},
		{cfBucket, s.Bucket, confCheckBucket}, {cfAccessKey, s.AccessKey, nil}, {cfSecretKey, s.SecretKey, nil},
		{cfPrefix, s.Prefix, confCheckPrefix}, {cfSink, s.Sink, confCheckSink},
	} {
		switch {
		case c.v == "" && c.f != cfPrefix && c.f != cfSink:
			return unset(c.f)
		case c.check == nil:
		case !confSame(c.check, c.v):
			return bad(c.f, c.v)
		}
	}
	if s.SSE != "" && s.SSE != "AES256" && s.SSE != "aws:kms" {
		return bad(cfSSE, s.SSE)
	}
	if s.SSEKMSKeyID != "" && s.SSE != "aws:kms" {
		return &ConfigError{Var: cfSSEKMSKeyID.env, Msg: confKMSAlone(cfSSEKMSKeyID.env, cfSSE.env, s.SSE)}
	}
	switch {
	case s.Format != lakeformat.JSONL && s.Format != lakeformat.Parquet:
		return bad(cfFormat, s.Format)
	case !confCompressions[s.Compression]:
		return bad(cfCompression, s.Compression)
	case !confPageCodecs[s.ParquetCodec]:
		return bad(cfParquetCodec, s.ParquetCodec)
	case s.Layout != lakeformat.Merged && s.Layout != lakeformat.PerPartition:
		return bad(cfLayout, s.Layout)
	case s.Align != lakeformat.AlignHour && s.Align != lakeformat.AlignDay && s.Align != lakeformat.AlignNone:
		return bad(cfAlign, s.Align)
	}
	if err := cfTargetMB.inRange(s.TargetBytes); err != nil {
		return err
	}
	return cfMaxWindowMs.inRange(int64(s.MaxWindow))
}

// confKMSAlone is the sentence refusing a KMS key id without aws:kms.
func confKMSAlone(name, sseName, sse string) string {
	now := "is not set"
	if sse != "" {
		now = "is " + sse
	}
	return fmt.Sprintf("%s is set but %s %s. It is %s, and goes only with %s=aws:kms",
		name, sseName, now, cfSSEKMSKeyID.what, sseName)
}

func (f *confField) kindOr() string {
	if f.kind == "" {
		return "allowed"
	}
	return f.kind
}

// confSame reports whether check accepts v as its own normal form.
func confSame(check func(string) (string, bool), v string) bool {
	n, ok := check(v)
	return ok && n == v
}

// confRange checks v (in units of unit, as the variable counts) against
// min..=max.
func confRange(name string, v, min, max, unit int64, what string) error {
	if v < min || v > max {
		return &ConfigError{Var: name, Msg: fmt.Sprintf("%s=%s is outside %d..=%d. It is %s",
			name, confUnits(v, unit), min/unit, max/unit, what)}
	}
	return nil
}

func confUnits(v, unit int64) string {
	if v%unit == 0 {
		return strconv.FormatInt(v/unit, 10)
	}
	return strconv.FormatFloat(float64(v)/float64(unit), 'f', -1, 64)
}

// DefaultNodeSettings returns the node-wide defaults (SINK-CONFIG.md §2a,
// §2c) of node nodeID on host hostname ("" reads as localhost), with
// threads from this machine's core count.
func DefaultNodeSettings(nodeID uint64, hostname string) NodeSettings {
	return confDefaultNode(nodeID, hostname, runtime.NumCPU())
}

func confDefaultNode(nodeID uint64, hostname string, cores int) NodeSettings {
	if hostname = strings.TrimSpace(hostname); hostname == "" {
		hostname = "localhost"
	}
	return NodeSettings{
		Threads:            min(max(cores/4, 1), 2),
		ShutdownGrace:      30 * time.Second,
		MemoryBytes:        512 * mib,
		FetchConcurrency:   4,
		DiscoveryInterval:  2 * time.Second,
		SafeGuard:          5 * time.Second,
		LeaseTTL:           30 * time.Second,
		MultipartThreshold: 64 * mib,
		CheckpointEvery:    20,
		Instance:           fmt.Sprintf("node-%d@%s", nodeID, hostname),
		CrashAt:            CrashNever,
	}
}

// Validate checks node settings built by hand against the ranges ParseEnv
// reads them in; the error names the variable.
func (n *NodeSettings) Validate() error {
	// In the order of the table, the first refusal is the one returned.
	for _, c := range []struct {
		f *confField
		v int64
	}{
		{nfThreads, int64(n.Threads)}, {nfGrace, int64(n.ShutdownGrace)}, {nfMemoryMB, n.MemoryBytes},
		{nfFetch, int64(n.FetchConcurrency)}, {nfDiscovery, int64(n.DiscoveryInterval)}, {nfSafeGuard, int64(n.SafeGuard)},
		{nfLeaseTTL, int64(n.LeaseTTL)}, {nfMultipart, n.MultipartThreshold}, {nfCheckpoint, int64(n.CheckpointEvery)},
	} {
		if err := c.f.inRange(c.v); err != nil {
			return err
		}
	}
	if strings.TrimSpace(n.Instance) == "" {
		return &ConfigError{Var: nfInstance.env, Msg: nfInstance.env + " is not set: it is " + nfInstance.what}
	}
	if _, ok := confCrashPoints[string(n.CrashAt)]; !ok || confCrashPoints[string(n.CrashAt)] != n.CrashAt {
		return &ConfigError{Var: nfCrashAt.env, Msg: fmt.Sprintf("%s=%s is not %s. It is one of %s: %s",
			nfCrashAt.env, n.CrashAt, nfCrashAt.kind, nfCrashAt.accepted, nfCrashAt.what)}
	}
	return nil
}

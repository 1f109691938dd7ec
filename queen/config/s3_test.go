package config

import (
	"errors"
	"maps"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/s3sink"
)

// The boot line's start for every refusal but QUEEN_S3_EMBEDDED's own.
const bootLine = "ERROR boot: FATAL: QUEEN_S3_EMBEDDED=true: "

// confTestBase is the smallest environment that runs the default tenant's
// sink: the spec's Try it, less its demo settings.
func confTestBase() map[string]string {
	return map[string]string{
		"QUEEN_S3_EMBEDDED":   "true",
		"QUEEN_S3_QUEUES":     "orders",
		"QUEEN_S3_ENDPOINT":   "http://minio:9000",
		"QUEEN_S3_REGION":     "us-east-1",
		"QUEEN_S3_BUCKET":     "lake",
		"QUEEN_S3_ACCESS_KEY": "queen",
		"QUEEN_S3_SECRET_KEY": "queen-secret-key",
	}
}

func confTestLoad(env map[string]string) (*S3, error) {
	return loadS3(func(k string) string { return env[k] }, 3, "host-a", 4)
}

func withBase(over map[string]string) map[string]string {
	env := confTestBase()
	maps.Copy(env, over)
	return env
}

// confTestWant is what confTestBase loads as.
func confTestWant() *S3 {
	s := s3sink.DefaultSettings()
	s.Queues = []string{"orders"}
	s.Endpoint, s.Region, s.Bucket = "http://minio:9000", "us-east-1", "lake"
	s.AccessKey, s.SecretKey = "queen", "queen-secret-key"
	return &S3{Embedded: true, Sink: &s, Node: s3sink.NodeSettings{
		Threads:            1,
		ShutdownGrace:      30 * time.Second,
		MemoryBytes:        512 << 20,
		FetchConcurrency:   4,
		DiscoveryInterval:  2 * time.Second,
		SafeGuard:          5 * time.Second,
		LeaseTTL:           30 * time.Second,
		MultipartThreshold: 64 << 20,
		CheckpointEvery:    20,
		Instance:           "node-3@host-a",
		CrashAt:            s3sink.CrashNever,
	}}
}

func TestEnvOff(t *testing.T) {
	for _, v := range []string{"", "  ", "false", "0", "No", "OFF"} {
		var read []string
		env := map[string]string{
			"QUEEN_S3_EMBEDDED": v, "QUEEN_S3_MAX_WINDOW_MS": "50", "QUEEN_S3_PARTITIONS": "q:0..3", "QUEEN_S3_BUCKET": "x",
		}
		c, err := LoadS3(func(k string) string { read = append(read, k); return env[k] }, 1, "h")
		if err != nil || c.Embedded || c.Sink != nil || len(c.Warnings) != 0 {
			t.Errorf("QUEEN_S3_EMBEDDED=%q: %+v, %v; want off, no error", v, c, err)
		}
		if !reflect.DeepEqual(read, []string{"QUEEN_S3_EMBEDDED"}) {
			t.Errorf("QUEEN_S3_EMBEDDED=%q: read %v, want QUEEN_S3_EMBEDDED alone", v, read)
		}
		if c.LogLine() != "embedded=false" {
			t.Errorf("log line when off: %q", c.LogLine())
		}
	}
	_, err := confTestLoad(map[string]string{"QUEEN_S3_EMBEDDED": "maybe"})
	var ce *BootError
	if !errors.As(err, &ce) || ce.Line() != "ERROR boot: FATAL: broker: QUEEN_S3_EMBEDDED=maybe is not a boolean. It is `true` or `false`" {
		t.Errorf("QUEEN_S3_EMBEDDED=maybe: %v", err)
	}
}

func TestEnvDefaults(t *testing.T) {
	for _, on := range []string{"true", "TRUE", "1", "yes", " on "} {
		env := withBase(map[string]string{"QUEEN_S3_EMBEDDED": on})
		c, err := confTestLoad(env)
		if err != nil {
			t.Fatal(err)
		}
		if want := confTestWant(); !reflect.DeepEqual(c, want) {
			t.Errorf("QUEEN_S3_EMBEDDED=%q:\n got %#v %v\nwant %#v %v", on, c.Sink, c.Node, want.Sink, want.Node)
		}
		if err := c.Sink.Validate(); err != nil {
			t.Errorf("defaults do not validate: %v", err)
		}
		if err := c.Node.Validate(); err != nil {
			t.Errorf("node defaults do not validate: %v", err)
		}
	}
	if d := s3sink.DefaultNodeSettings(3, "host-a"); d.Instance != "node-3@host-a" || d.Threads != min(max(runtime.NumCPU()/4, 1), 2) {
		t.Errorf("DefaultNodeSettings: %v", d)
	}
}

// TestEnvReadOnce: every variable is read at most once.
func TestEnvReadOnce(t *testing.T) {
	env := withBase(map[string]string{"QUEEN_S3_INSTANCE": "pod", "QUEEN_S3_LISTEN": ":8080"})
	reads := map[string]int{}
	if _, err := loadS3(func(k string) string { reads[k]++; return env[k] }, 1, "h", 4); err != nil {
		t.Fatal(err)
	}
	for k, n := range reads {
		if n != 1 {
			t.Errorf("%s read %d times", k, n)
		}
		if !strings.HasPrefix(k, "QUEEN_S3_") {
			t.Errorf("read %s, not a QUEEN_S3_ variable", k)
		}
	}
	for _, k := range []string{"QUEEN_S3_SECRET_KEY", "QUEEN_S3_CRASH_AT", "QUEEN_S3_THREADS", "QUEEN_S3_LOG_FORMAT"} {
		if reads[k] != 1 {
			t.Errorf("%s not read", k)
		}
	}
}

// TestEnvValues: every variable, its aliases in any case, its bounds, and
// a blank value reading as unset.
func TestEnvValues(t *testing.T) {
	type S = s3sink.Settings
	type N = s3sink.NodeSettings
	cases := []struct {
		env  map[string]string
		sink func(*S)
		node func(*N)
	}{
		// Queues.
		{env: map[string]string{"QUEEN_S3_QUEUES": "*"}, sink: func(s *S) { s.AllQueues, s.Queues = true, nil }},
		{env: map[string]string{"QUEEN_S3_QUEUES": " * "}, sink: func(s *S) { s.AllQueues, s.Queues = true, nil }},
		{env: map[string]string{"QUEEN_S3_QUEUES": " a , b,c "}, sink: func(s *S) { s.Queues = []string{"a", "b", "c"} }},
		{env: map[string]string{"QUEEN_S3_QUEUES": "a,b,a"}, sink: func(s *S) { s.Queues = []string{"a", "b"} }},
		{env: map[string]string{"QUEEN_S3_QUEUES": "a b"}, sink: func(s *S) { s.Queues = []string{"a b"} }},
		// Endpoint.
		{env: map[string]string{"QUEEN_S3_ENDPOINT": "http://minio:9000/"}, sink: func(s *S) {}},
		{env: map[string]string{"QUEEN_S3_ENDPOINT": "HTTPS://s3.eu-central-1.amazonaws.com"}, sink: func(s *S) { s.Endpoint = "https://s3.eu-central-1.amazonaws.com" }},
		{env: map[string]string{"QUEEN_S3_ENDPOINT": "http://127.0.0.1:65535"}, sink: func(s *S) { s.Endpoint = "http://127.0.0.1:65535" }},
		{env: map[string]string{"QUEEN_S3_ENDPOINT": "http://[::1]:9000/"}, sink: func(s *S) { s.Endpoint = "http://[::1]:9000" }},
		{env: map[string]string{"QUEEN_S3_ENDPOINT": "http://[::1]"}, sink: func(s *S) { s.Endpoint = "http://[::1]" }},
		// Region, bucket, keys.
		{env: map[string]string{"QUEEN_S3_REGION": "auto"}, sink: func(s *S) { s.Region = "auto" }},
		{env: map[string]string{"QUEEN_S3_BUCKET": " my.lake-1 "}, sink: func(s *S) { s.Bucket = "my.lake-1" }},
		{env: map[string]string{"QUEEN_S3_ACCESS_KEY": "AKIA", "QUEEN_S3_SECRET_KEY": "s e c"}, sink: func(s *S) { s.AccessKey, s.SecretKey = "AKIA", "s e c" }},
		// Prefix.
		{env: map[string]string{"QUEEN_S3_PREFIX": "  "}, sink: func(s *S) {}},
		{env: map[string]string{"QUEEN_S3_PREFIX": "/lake/queen/"}, sink: func(s *S) { s.Prefix = "lake/queen" }},
		{env: map[string]string{"QUEEN_S3_PREFIX": "//a.b/..c//"}, sink: func(s *S) { s.Prefix = "a.b/..c" }},
		// Path style.
		{env: map[string]string{"QUEEN_S3_PATH_STYLE": "true"}, sink: func(s *S) { s.PathStyle = true }},
		{env: map[string]string{"QUEEN_S3_PATH_STYLE": "1"}, sink: func(s *S) { s.PathStyle = true }},
		{env: map[string]string{"QUEEN_S3_PATH_STYLE": "Yes"}, sink: func(s *S) { s.PathStyle = true }},
		{env: map[string]string{"QUEEN_S3_PATH_STYLE": "ON"}, sink: func(s *S) { s.PathStyle = true }},
		{env: map[string]string{"QUEEN_S3_PATH_STYLE": "False"}, sink: func(s *S) {}},
		{env: map[string]string{"QUEEN_S3_PATH_STYLE": "0"}, sink: func(s *S) {}},
		{env: map[string]string{"QUEEN_S3_PATH_STYLE": "no"}, sink: func(s *S) {}},
		{env: map[string]string{"QUEEN_S3_PATH_STYLE": "off"}, sink: func(s *S) {}},
		// Encryption.
		{env: map[string]string{"QUEEN_S3_SSE": "aes256"}, sink: func(s *S) { s.SSE = "AES256" }},
		{env: map[string]string{"QUEEN_S3_SSE": "AWS:KMS"}, sink: func(s *S) { s.SSE = "aws:kms" }},
		{env: map[string]string{"QUEEN_S3_SSE": "kms", "QUEEN_S3_SSE_KMS_KEY_ID": "key-1"}, sink: func(s *S) { s.SSE, s.SSEKMSKeyID = "aws:kms", "key-1" }},
		// Format and codecs.
		{env: map[string]string{"QUEEN_S3_FORMAT": "JSONL"}, sink: func(s *S) {}},
		{env: map[string]string{"QUEEN_S3_FORMAT": "json"}, sink: func(s *S) {}},
		{env: map[string]string{"QUEEN_S3_FORMAT": "NDJson"}, sink: func(s *S) {}},
		{env: map[string]string{"QUEEN_S3_FORMAT": "Parquet"}, sink: func(s *S) { s.Format = lakeformat.Parquet }},
		{env: map[string]string{"QUEEN_S3_COMPRESSION": "ZST"}, sink: func(s *S) {}},
		{env: map[string]string{"QUEEN_S3_COMPRESSION": "gzip"}, sink: func(s *S) { s.Compression = lakeformat.Gzip }},
		{env: map[string]string{"QUEEN_S3_COMPRESSION": "GZ"}, sink: func(s *S) { s.Compression = lakeformat.Gzip }},
		{env: map[string]string{"QUEEN_S3_COMPRESSION": "none"}, sink: func(s *S) { s.Compression = lakeformat.None }},
		{env: map[string]string{"QUEEN_S3_COMPRESSION": "Off"}, sink: func(s *S) { s.Compression = lakeformat.None }},
		{env: map[string]string{"QUEEN_S3_PARQUET_CODEC": "zstd"}, sink: func(s *S) {}},
		{env: map[string]string{"QUEEN_S3_PARQUET_CODEC": "snappy"}, sink: func(s *S) { s.ParquetCodec = lakeformat.Snappy }},
		{env: map[string]string{"QUEEN_S3_PARQUET_CODEC": "SNAP"}, sink: func(s *S) { s.ParquetCodec = lakeformat.Snappy }},
		{env: map[string]string{"QUEEN_S3_LAYOUT": "Merged"}, sink: func(s *S) {}},
		{env: map[string]string{"QUEEN_S3_LAYOUT": "per-partition"}, sink: func(s *S) { s.Layout = lakeformat.PerPartition }},
		{env: map[string]string{"QUEEN_S3_LAYOUT": "PER_PARTITION"}, sink: func(s *S) { s.Layout = lakeformat.PerPartition }},
		{env: map[string]string{"QUEEN_S3_LAYOUT": "perpartition"}, sink: func(s *S) { s.Layout = lakeformat.PerPartition }},
		{env: map[string]string{"QUEEN_S3_ALIGN": "Hourly"}, sink: func(s *S) {}},
		{env: map[string]string{"QUEEN_S3_ALIGN": "day"}, sink: func(s *S) { s.Align = lakeformat.AlignDay }},
		{env: map[string]string{"QUEEN_S3_ALIGN": "DAILY"}, sink: func(s *S) { s.Align = lakeformat.AlignDay }},
		{env: map[string]string{"QUEEN_S3_ALIGN": "none"}, sink: func(s *S) { s.Align = lakeformat.AlignNone }},
		{env: map[string]string{"QUEEN_S3_ALIGN": "off"}, sink: func(s *S) { s.Align = lakeformat.AlignNone }},
		// Start.
		{env: map[string]string{"QUEEN_S3_START": "Latest"}, sink: func(s *S) {}},
		{env: map[string]string{"QUEEN_S3_START": "now"}, sink: func(s *S) {}},
		{env: map[string]string{"QUEEN_S3_START": "END"}, sink: func(s *S) {}},
		{env: map[string]string{"QUEEN_S3_START": "earliest"}, sink: func(s *S) { s.StartEarliest = true }},
		{env: map[string]string{"QUEEN_S3_START": "Beginning"}, sink: func(s *S) { s.StartEarliest = true }},
		// Window sizes.
		{env: map[string]string{"QUEEN_S3_TARGET_MB": "1"}, sink: func(s *S) { s.TargetBytes = 1 << 20 }},
		{env: map[string]string{"QUEEN_S3_TARGET_MB": "5120"}, sink: func(s *S) { s.TargetBytes = 5120 << 20 }},
		{env: map[string]string{"QUEEN_S3_TARGET_MB": "+064"}, sink: func(s *S) { s.TargetBytes = 64 << 20 }},
		{env: map[string]string{"QUEEN_S3_MAX_WINDOW_MS": "100"}, sink: func(s *S) { s.MaxWindow = 100 * time.Millisecond }},
		{env: map[string]string{"QUEEN_S3_MAX_WINDOW_MS": "86400000"}, sink: func(s *S) { s.MaxWindow = 24 * time.Hour }},
		{env: map[string]string{"QUEEN_S3_MAX_WINDOW_MS": "10000"}, sink: func(s *S) { s.MaxWindow = 10 * time.Second }},
		// Sink name.
		{env: map[string]string{"QUEEN_S3_SINK": "lake_2.b-c"}, sink: func(s *S) { s.Sink = "lake_2.b-c" }},
		{env: map[string]string{"QUEEN_S3_SINK": strings.Repeat("x", 64)}, sink: func(s *S) { s.Sink = strings.Repeat("x", 64) }},
		// Node-wide.
		{env: map[string]string{"QUEEN_S3_THREADS": "1"}, node: func(n *N) { n.Threads = 1 }},
		{env: map[string]string{"QUEEN_S3_THREADS": "64"}, node: func(n *N) { n.Threads = 64 }},
		{env: map[string]string{"QUEEN_S3_SHUTDOWN_GRACE_MS": "100"}, node: func(n *N) { n.ShutdownGrace = 100 * time.Millisecond }},
		{env: map[string]string{"QUEEN_S3_SHUTDOWN_GRACE_MS": "3600000"}, node: func(n *N) { n.ShutdownGrace = time.Hour }},
		{env: map[string]string{"QUEEN_S3_MEMORY_MB": "1"}, node: func(n *N) { n.MemoryBytes = 1 << 20 }},
		{env: map[string]string{"QUEEN_S3_MEMORY_MB": "1048576"}, node: func(n *N) { n.MemoryBytes = 1 << 40 }},
		{env: map[string]string{"QUEEN_S3_FETCH_CONCURRENCY": "1"}, node: func(n *N) { n.FetchConcurrency = 1 }},
		{env: map[string]string{"QUEEN_S3_FETCH_CONCURRENCY": "256"}, node: func(n *N) { n.FetchConcurrency = 256 }},
		{env: map[string]string{"QUEEN_S3_DISCOVERY_INTERVAL_MS": "10"}, node: func(n *N) { n.DiscoveryInterval = 10 * time.Millisecond }},
		{env: map[string]string{"QUEEN_S3_DISCOVERY_INTERVAL_MS": "3600000"}, node: func(n *N) { n.DiscoveryInterval = time.Hour }},
		{env: map[string]string{"QUEEN_S3_SAFE_GUARD_MS": "0"}, node: func(n *N) { n.SafeGuard = 0 }},
		{env: map[string]string{"QUEEN_S3_SAFE_GUARD_MS": "3600000"}, node: func(n *N) { n.SafeGuard = time.Hour }},
		{env: map[string]string{"QUEEN_S3_LEASE_TTL_MS": "1000"}, node: func(n *N) { n.LeaseTTL = time.Second }},
		{env: map[string]string{"QUEEN_S3_LEASE_TTL_MS": "3600000"}, node: func(n *N) { n.LeaseTTL = time.Hour }},
		{env: map[string]string{"QUEEN_S3_MULTIPART_THRESHOLD_MB": "5"}, node: func(n *N) { n.MultipartThreshold = 5 << 20 }},
		{env: map[string]string{"QUEEN_S3_MULTIPART_THRESHOLD_MB": "5120"}, node: func(n *N) { n.MultipartThreshold = 5120 << 20 }},
		{env: map[string]string{"QUEEN_S3_CHECKPOINT_EVERY": "1"}, node: func(n *N) { n.CheckpointEvery = 1 }},
		{env: map[string]string{"QUEEN_S3_CHECKPOINT_EVERY": "100000"}, node: func(n *N) { n.CheckpointEvery = 100000 }},
		{env: map[string]string{"QUEEN_S3_CRASH_AT": "NEVER"}, node: func(n *N) {}},
		{env: map[string]string{"QUEEN_S3_CRASH_AT": "off"}, node: func(n *N) {}},
		{env: map[string]string{"QUEEN_S3_CRASH_AT": "none"}, node: func(n *N) {}},
		{env: map[string]string{"QUEEN_S3_CRASH_AT": "after_intent"}, node: func(n *N) { n.CrashAt = s3sink.CrashAfterIntent }},
		{env: map[string]string{"QUEEN_S3_CRASH_AT": "Mid_Upload"}, node: func(n *N) { n.CrashAt = s3sink.CrashMidUpload }},
		{env: map[string]string{"QUEEN_S3_CRASH_AT": "after_upload"}, node: func(n *N) { n.CrashAt = s3sink.CrashAfterUpload }},
		{env: map[string]string{"QUEEN_S3_CRASH_AT": "BEFORE_COMMIT"}, node: func(n *N) { n.CrashAt = s3sink.CrashBeforeCommit }},
		{env: map[string]string{"QUEEN_S3_CRASH_AT": "after_commit"}, node: func(n *N) { n.CrashAt = s3sink.CrashAfterCommit }},
		// Blank is unset, for every defaulted variable.
		{env: map[string]string{
			"QUEEN_S3_PATH_STYLE": " ", "QUEEN_S3_SSE": "\t", "QUEEN_S3_SSE_KMS_KEY_ID": " ", "QUEEN_S3_FORMAT": " ",
			"QUEEN_S3_COMPRESSION": " ", "QUEEN_S3_PARQUET_CODEC": " ", "QUEEN_S3_LAYOUT": " ", "QUEEN_S3_ALIGN": " ",
			"QUEEN_S3_START": " ", "QUEEN_S3_TARGET_MB": " ", "QUEEN_S3_MAX_WINDOW_MS": " ", "QUEEN_S3_SINK": " ",
			"QUEEN_S3_THREADS": " ", "QUEEN_S3_SHUTDOWN_GRACE_MS": " ", "QUEEN_S3_MEMORY_MB": " ",
			"QUEEN_S3_FETCH_CONCURRENCY": " ", "QUEEN_S3_DISCOVERY_INTERVAL_MS": " ", "QUEEN_S3_SAFE_GUARD_MS": " ",
			"QUEEN_S3_LEASE_TTL_MS": " ", "QUEEN_S3_MULTIPART_THRESHOLD_MB": " ", "QUEEN_S3_CHECKPOINT_EVERY": " ",
			"QUEEN_S3_INSTANCE": " ", "QUEEN_S3_CRASH_AT": " ", "QUEEN_S3_PARTITIONS": " ", "QUEEN_S3_LISTEN": " ",
		}},
	}
	for _, c := range cases {
		got, err := confTestLoad(withBase(c.env))
		if err != nil {
			t.Errorf("%v: %v", c.env, err)
			continue
		}
		want := confTestWant()
		if c.sink != nil {
			c.sink(want.Sink)
		}
		if c.node != nil {
			c.node(&want.Node)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v:\n got %#v %v %v\nwant %#v %v", c.env, got.Sink, got.Node, got.Warnings, want.Sink, want.Node)
		}
		if err := got.Sink.Validate(); err != nil {
			t.Errorf("%v: loaded settings do not validate: %v", c.env, err)
		}
		if err := got.Node.Validate(); err != nil {
			t.Errorf("%v: loaded node settings do not validate: %v", c.env, err)
		}
	}
}

// TestEnvRefusals: every refusal, with its whole line.
func TestEnvRefusals(t *testing.T) {
	cases := []struct {
		env  map[string]string
		line string
	}{
		// Required.
		{map[string]string{"QUEEN_S3_ENDPOINT": ""}, bootLine + "QUEEN_S3_ENDPOINT is not set: it is the S3 API base URL, http:// or https:// then host[:port], with no path"},
		{map[string]string{"QUEEN_S3_REGION": " "}, bootLine + "QUEEN_S3_REGION is not set: it is the region requests are signed for (SigV4), such as us-east-1, with no / and no space"},
		{map[string]string{"QUEEN_S3_BUCKET": ""}, bootLine + "QUEEN_S3_BUCKET is not set: it is the bucket the sink writes to, with no / and no space"},
		{map[string]string{"QUEEN_S3_ACCESS_KEY": ""}, bootLine + "QUEEN_S3_ACCESS_KEY is not set: it is the access key id the sink signs requests with"},
		{map[string]string{"QUEEN_S3_SECRET_KEY": "\t"}, bootLine + "QUEEN_S3_SECRET_KEY is not set: it is the secret access key the sink signs requests with"},
		// Queues.
		{map[string]string{"QUEEN_S3_QUEUES": "a,,b"}, bootLine + "QUEEN_S3_QUEUES=a,,b is not a queue list. It is the queues the sink mirrors, * for every queue or names separated by commas, none empty"},
		{map[string]string{"QUEEN_S3_QUEUES": ","}, bootLine + "QUEEN_S3_QUEUES=, is not a queue list. It is the queues the sink mirrors, * for every queue or names separated by commas, none empty"},
		{map[string]string{"QUEEN_S3_QUEUES": "a,"}, bootLine + "QUEEN_S3_QUEUES=a, is not a queue list. It is the queues the sink mirrors, * for every queue or names separated by commas, none empty"},
		{map[string]string{"QUEEN_S3_QUEUES": "a,*"}, bootLine + "QUEEN_S3_QUEUES=a,* is not a queue list. It is the queues the sink mirrors, * for every queue or names separated by commas, none empty"},
		// Endpoint.
		{map[string]string{"QUEEN_S3_ENDPOINT": "minio:9000"}, bootLine + "QUEEN_S3_ENDPOINT=minio:9000 is not an S3 endpoint. It is the S3 API base URL, http:// or https:// then host[:port], with no path"},
		{map[string]string{"QUEEN_S3_ENDPOINT": "ftp://minio"}, bootLine + "QUEEN_S3_ENDPOINT=ftp://minio is not an S3 endpoint. It is the S3 API base URL, http:// or https:// then host[:port], with no path"},
		{map[string]string{"QUEEN_S3_ENDPOINT": "http://minio:9000/lake"}, bootLine + "QUEEN_S3_ENDPOINT=http://minio:9000/lake is not an S3 endpoint. It is the S3 API base URL, http:// or https:// then host[:port], with no path"},
		{map[string]string{"QUEEN_S3_ENDPOINT": "http://minio//"}, bootLine + "QUEEN_S3_ENDPOINT=http://minio// is not an S3 endpoint. It is the S3 API base URL, http:// or https:// then host[:port], with no path"},
		{map[string]string{"QUEEN_S3_ENDPOINT": "http://"}, bootLine + "QUEEN_S3_ENDPOINT=http:// is not an S3 endpoint. It is the S3 API base URL, http:// or https:// then host[:port], with no path"},
		{map[string]string{"QUEEN_S3_ENDPOINT": "http://minio:0"}, bootLine + "QUEEN_S3_ENDPOINT=http://minio:0 is not an S3 endpoint. It is the S3 API base URL, http:// or https:// then host[:port], with no path"},
		{map[string]string{"QUEEN_S3_ENDPOINT": "http://minio:65536"}, bootLine + "QUEEN_S3_ENDPOINT=http://minio:65536 is not an S3 endpoint. It is the S3 API base URL, http:// or https:// then host[:port], with no path"},
		{map[string]string{"QUEEN_S3_ENDPOINT": "http://minio:"}, bootLine + "QUEEN_S3_ENDPOINT=http://minio: is not an S3 endpoint. It is the S3 API base URL, http:// or https:// then host[:port], with no path"},
		{map[string]string{"QUEEN_S3_ENDPOINT": "http://u:p@minio"}, bootLine + "QUEEN_S3_ENDPOINT=http://u:p@minio is not an S3 endpoint. It is the S3 API base URL, http:// or https:// then host[:port], with no path"},
		{map[string]string{"QUEEN_S3_ENDPOINT": "http://minio?x=1"}, bootLine + "QUEEN_S3_ENDPOINT=http://minio?x=1 is not an S3 endpoint. It is the S3 API base URL, http:// or https:// then host[:port], with no path"},
		{map[string]string{"QUEEN_S3_ENDPOINT": "http://[::1"}, bootLine + "QUEEN_S3_ENDPOINT=http://[::1 is not an S3 endpoint. It is the S3 API base URL, http:// or https:// then host[:port], with no path"},
		// Region, bucket, prefix.
		{map[string]string{"QUEEN_S3_REGION": "us east"}, bootLine + "QUEEN_S3_REGION=us east is not a region. It is the region requests are signed for (SigV4), such as us-east-1, with no / and no space"},
		{map[string]string{"QUEEN_S3_BUCKET": "a/b"}, bootLine + "QUEEN_S3_BUCKET=a/b is not a bucket name. It is the bucket the sink writes to, with no / and no space"},
		{map[string]string{"QUEEN_S3_BUCKET": "my lake"}, bootLine + "QUEEN_S3_BUCKET=my lake is not a bucket name. It is the bucket the sink writes to, with no / and no space"},
		{map[string]string{"QUEEN_S3_PREFIX": "/"}, bootLine + "QUEEN_S3_PREFIX=/ is not a key prefix. It is the root of every key the sink writes, sidecars included, as segments separated by /, with no space, none of them empty, . or .."},
		{map[string]string{"QUEEN_S3_PREFIX": "a//b"}, bootLine + "QUEEN_S3_PREFIX=a//b is not a key prefix. It is the root of every key the sink writes, sidecars included, as segments separated by /, with no space, none of them empty, . or .."},
		{map[string]string{"QUEEN_S3_PREFIX": "a/./b"}, bootLine + "QUEEN_S3_PREFIX=a/./b is not a key prefix. It is the root of every key the sink writes, sidecars included, as segments separated by /, with no space, none of them empty, . or .."},
		{map[string]string{"QUEEN_S3_PREFIX": "my lake"}, bootLine + "QUEEN_S3_PREFIX=my lake is not a key prefix. It is the root of every key the sink writes, sidecars included, as segments separated by /, with no space, none of them empty, . or .."},
		{map[string]string{"QUEEN_S3_PREFIX": "/../lake"}, bootLine + "QUEEN_S3_PREFIX=/../lake is not a key prefix. It is the root of every key the sink writes, sidecars included, as segments separated by /, with no space, none of them empty, . or .."},
		// Path style, encryption.
		{map[string]string{"QUEEN_S3_PATH_STYLE": "maybe"}, bootLine + "QUEEN_S3_PATH_STYLE=maybe is not a boolean. It is `true` or `false`"},
		{map[string]string{"QUEEN_S3_SSE": "des"}, bootLine + "QUEEN_S3_SSE=des is not a server-side encryption. It is one of AES256, aws:kms (kms): the server-side encryption every upload asks for"},
		{map[string]string{"QUEEN_S3_SSE_KMS_KEY_ID": "key-1"}, bootLine + "QUEEN_S3_SSE_KMS_KEY_ID is set but QUEEN_S3_SSE is not set. It is the KMS key of aws:kms encryption, and goes only with QUEEN_S3_SSE=aws:kms"},
		{map[string]string{"QUEEN_S3_SSE_KMS_KEY_ID": "key-1", "QUEEN_S3_SSE": "aes256"}, bootLine + "QUEEN_S3_SSE_KMS_KEY_ID is set but QUEEN_S3_SSE is AES256. It is the KMS key of aws:kms encryption, and goes only with QUEEN_S3_SSE=aws:kms"},
		// Enumerations.
		{map[string]string{"QUEEN_S3_FORMAT": "xml"}, bootLine + "QUEEN_S3_FORMAT=xml is not a format. It is one of jsonl (json, ndjson), parquet: the format of the objects"},
		{map[string]string{"QUEEN_S3_COMPRESSION": "snappy"}, bootLine + "QUEEN_S3_COMPRESSION=snappy is not a compression. It is one of zstd (zst), gzip (gz), none (off): the codec of JSONL objects"},
		{map[string]string{"QUEEN_S3_COMPRESSION": "lz4"}, bootLine + "QUEEN_S3_COMPRESSION=lz4 is not a compression. It is one of zstd (zst), gzip (gz), none (off): the codec of JSONL objects"},
		{map[string]string{"QUEEN_S3_PARQUET_CODEC": "gzip"}, bootLine + "QUEEN_S3_PARQUET_CODEC=gzip is not a Parquet codec. It is one of zstd (zst), snappy (snap): the page codec of Parquet objects"},
		{map[string]string{"QUEEN_S3_PARQUET_CODEC": "none"}, bootLine + "QUEEN_S3_PARQUET_CODEC=none is not a Parquet codec. It is one of zstd (zst), snappy (snap): the page codec of Parquet objects"},
		{map[string]string{"QUEEN_S3_LAYOUT": "flat"}, bootLine + "QUEEN_S3_LAYOUT=flat is not a layout. It is one of merged, per-partition (per_partition, perpartition): one object per window, or one per window and partition"},
		{map[string]string{"QUEEN_S3_ALIGN": "week"}, bootLine + "QUEEN_S3_ALIGN=week is not an alignment. It is one of hour (hourly), day (daily), none (off): the boundary no window crosses"},
		{map[string]string{"QUEEN_S3_START": "middle"}, bootLine + "QUEEN_S3_START=middle is not a start. It is one of latest (now, end), earliest (beginning): where the sink starts a queue that has no commit pointer"},
		// Numbers.
		{map[string]string{"QUEEN_S3_TARGET_MB": "0"}, bootLine + "QUEEN_S3_TARGET_MB=0 is outside 1..=5120. It is the uncompressed size, in MiB, at which a window closes"},
		{map[string]string{"QUEEN_S3_TARGET_MB": "5121"}, bootLine + "QUEEN_S3_TARGET_MB=5121 is outside 1..=5120. It is the uncompressed size, in MiB, at which a window closes"},
		{map[string]string{"QUEEN_S3_TARGET_MB": "99999999999999999999"}, bootLine + "QUEEN_S3_TARGET_MB=99999999999999999999 is outside 1..=5120. It is the uncompressed size, in MiB, at which a window closes"},
		{map[string]string{"QUEEN_S3_TARGET_MB": "big"}, bootLine + "QUEEN_S3_TARGET_MB=big is not a whole number. It is the uncompressed size, in MiB, at which a window closes, in 1..=5120"},
		{map[string]string{"QUEEN_S3_TARGET_MB": "1.5"}, bootLine + "QUEEN_S3_TARGET_MB=1.5 is not a whole number. It is the uncompressed size, in MiB, at which a window closes, in 1..=5120"},
		{map[string]string{"QUEEN_S3_MAX_WINDOW_MS": "50"}, "ERROR boot: FATAL: QUEEN_S3_EMBEDDED=true: QUEEN_S3_MAX_WINDOW_MS=50 is outside 100..=86400000. It is how long a window may stay open; the lag SLO is about this plus the safe lag"},
		{map[string]string{"QUEEN_S3_MAX_WINDOW_MS": "86400001"}, bootLine + "QUEEN_S3_MAX_WINDOW_MS=86400001 is outside 100..=86400000. It is how long a window may stay open; the lag SLO is about this plus the safe lag"},
		{map[string]string{"QUEEN_S3_MAX_WINDOW_MS": "5m"}, bootLine + "QUEEN_S3_MAX_WINDOW_MS=5m is not a whole number. It is how long a window may stay open; the lag SLO is about this plus the safe lag, in 100..=86400000"},
		// Sink name.
		{map[string]string{"QUEEN_S3_SINK": "a b"}, bootLine + "QUEEN_S3_SINK=a b is not a sink name. It is 1 to 64 characters of A-Z a-z 0-9 . _ -, naming the sink's KV documents and what retentionSinkHold refers to"},
		{map[string]string{"QUEEN_S3_SINK": "s3:x"}, bootLine + "QUEEN_S3_SINK=s3:x is not a sink name. It is 1 to 64 characters of A-Z a-z 0-9 . _ -, naming the sink's KV documents and what retentionSinkHold refers to"},
		{map[string]string{"QUEEN_S3_SINK": strings.Repeat("x", 65)}, bootLine + "QUEEN_S3_SINK=" + strings.Repeat("x", 65) + " is not a sink name. It is 1 to 64 characters of A-Z a-z 0-9 . _ -, naming the sink's KV documents and what retentionSinkHold refers to"},
		// Broker-owned.
		{map[string]string{"QUEEN_S3_THREADS": "0"}, bootLine + "QUEEN_S3_THREADS=0 is not an integer in 1..=64"},
		{map[string]string{"QUEEN_S3_THREADS": "65"}, bootLine + "QUEEN_S3_THREADS=65 is not an integer in 1..=64"},
		{map[string]string{"QUEEN_S3_THREADS": "two"}, bootLine + "QUEEN_S3_THREADS=two is not an integer in 1..=64"},
		{map[string]string{"QUEEN_S3_SHUTDOWN_GRACE_MS": "99"}, bootLine + "QUEEN_S3_SHUTDOWN_GRACE_MS=99 is not an integer in 100..=3600000"},
		{map[string]string{"QUEEN_S3_SHUTDOWN_GRACE_MS": "3600001"}, bootLine + "QUEEN_S3_SHUTDOWN_GRACE_MS=3600001 is not an integer in 100..=3600000"},
		{map[string]string{"QUEEN_S3_SHUTDOWN_GRACE_MS": "30s"}, bootLine + "QUEEN_S3_SHUTDOWN_GRACE_MS=30s is not an integer in 100..=3600000"},
		// Node-wide.
		{map[string]string{"QUEEN_S3_MEMORY_MB": "0"}, bootLine + "QUEEN_S3_MEMORY_MB=0 is outside 1..=1048576. It is the one buffer budget, in MiB, of all queues of all sinks on this node; when it is hit, the largest buffer closes first"},
		{map[string]string{"QUEEN_S3_MEMORY_MB": "1048577"}, bootLine + "QUEEN_S3_MEMORY_MB=1048577 is outside 1..=1048576. It is the one buffer budget, in MiB, of all queues of all sinks on this node; when it is hit, the largest buffer closes first"},
		{map[string]string{"QUEEN_S3_MEMORY_MB": "1g"}, bootLine + "QUEEN_S3_MEMORY_MB=1g is not a whole number. It is the one buffer budget, in MiB, of all queues of all sinks on this node; when it is hit, the largest buffer closes first, in 1..=1048576"},
		{map[string]string{"QUEEN_S3_FETCH_CONCURRENCY": "0"}, bootLine + "QUEEN_S3_FETCH_CONCURRENCY=0 is outside 1..=256. It is how many log reads each queue keeps in flight"},
		{map[string]string{"QUEEN_S3_FETCH_CONCURRENCY": "257"}, bootLine + "QUEEN_S3_FETCH_CONCURRENCY=257 is outside 1..=256. It is how many log reads each queue keeps in flight"},
		{map[string]string{"QUEEN_S3_DISCOVERY_INTERVAL_MS": "9"}, bootLine + "QUEEN_S3_DISCOVERY_INTERVAL_MS=9 is outside 10..=3600000. It is how often an idle queue looks for new records and partitions, in milliseconds"},
		{map[string]string{"QUEEN_S3_DISCOVERY_INTERVAL_MS": "3600001"}, bootLine + "QUEEN_S3_DISCOVERY_INTERVAL_MS=3600001 is outside 10..=3600000. It is how often an idle queue looks for new records and partitions, in milliseconds"},
		{map[string]string{"QUEEN_S3_SAFE_GUARD_MS": "-1"}, bootLine + "QUEEN_S3_SAFE_GUARD_MS=-1 is outside 0..=3600000. It is how far below safeTime a window closes, in milliseconds"},
		{map[string]string{"QUEEN_S3_SAFE_GUARD_MS": "3600001"}, bootLine + "QUEEN_S3_SAFE_GUARD_MS=3600001 is outside 0..=3600000. It is how far below safeTime a window closes, in milliseconds"},
		{map[string]string{"QUEEN_S3_LEASE_TTL_MS": "999"}, bootLine + "QUEEN_S3_LEASE_TTL_MS=999 is outside 1000..=3600000. It is how long a queue lease and a presence row live without a refresh, in milliseconds"},
		{map[string]string{"QUEEN_S3_LEASE_TTL_MS": "3600001"}, bootLine + "QUEEN_S3_LEASE_TTL_MS=3600001 is outside 1000..=3600000. It is how long a queue lease and a presence row live without a refresh, in milliseconds"},
		{map[string]string{"QUEEN_S3_MULTIPART_THRESHOLD_MB": "4"}, bootLine + "QUEEN_S3_MULTIPART_THRESHOLD_MB=4 is outside 5..=5120. It is the object size, in MiB, above which an upload is multipart (16 MiB parts) rather than one PUT"},
		{map[string]string{"QUEEN_S3_MULTIPART_THRESHOLD_MB": "5121"}, bootLine + "QUEEN_S3_MULTIPART_THRESHOLD_MB=5121 is outside 5..=5120. It is the object size, in MiB, above which an upload is multipart (16 MiB parts) rather than one PUT"},
		{map[string]string{"QUEEN_S3_CHECKPOINT_EVERY": "0"}, bootLine + "QUEEN_S3_CHECKPOINT_EVERY=0 is outside 1..=100000. It is how many windows pass between two position checkpoints"},
		{map[string]string{"QUEEN_S3_CHECKPOINT_EVERY": "100001"}, bootLine + "QUEEN_S3_CHECKPOINT_EVERY=100001 is outside 1..=100000. It is how many windows pass between two position checkpoints"},
		{map[string]string{"QUEEN_S3_CRASH_AT": "sometimes"}, bootLine + "QUEEN_S3_CRASH_AT=sometimes is not a crash point. It is one of never (off, none), after_intent, mid_upload, after_upload, before_commit, after_commit: for tests only, the step of the commit sequence at which the broker aborts"},
		{map[string]string{"QUEEN_S3_CRASH_AT": "after-intent"}, bootLine + "QUEEN_S3_CRASH_AT=after-intent is not a crash point. It is one of never (off, none), after_intent, mid_upload, after_upload, before_commit, after_commit: for tests only, the step of the commit sequence at which the broker aborts"},
		// The static partition list, with or without the queues.
		{map[string]string{"QUEEN_S3_PARTITIONS": "q:0..3,q2:a,b"}, bootLine + "QUEEN_S3_PARTITIONS=q:0..3,q2:a,b is refused: a static partition list is not supported, because a window can only close below the safeTime that discovery reports for the partitions it finds. Unset it: the sink discovers every partition of its queues"},
		{map[string]string{"QUEEN_S3_PARTITIONS": "q:0", "QUEEN_S3_QUEUES": ""}, bootLine + "QUEEN_S3_PARTITIONS=q:0 is refused: a static partition list is not supported, because a window can only close below the safeTime that discovery reports for the partitions it finds. Unset it: the sink discovers every partition of its queues"},
		// A per-sink variable without the queues.
		{map[string]string{"QUEEN_S3_QUEUES": " "}, bootLine + "QUEEN_S3_ENDPOINT is set but QUEEN_S3_QUEUES is not: the default tenant's sink runs only when QUEEN_S3_QUEUES names its queues. Set QUEEN_S3_QUEUES, or unset QUEEN_S3_ENDPOINT and leave the sinks to the control plane"},
		// A value with a line break stays on one line.
		{map[string]string{"QUEEN_S3_FORMAT": "json\nl"}, bootLine + `QUEEN_S3_FORMAT="json\nl" is not a format. It is one of jsonl (json, ndjson), parquet: the format of the objects`},
		// The first refusal in the tables' order is the one reported.
		{map[string]string{"QUEEN_S3_CHECKPOINT_EVERY": "0", "QUEEN_S3_MAX_WINDOW_MS": "50", "QUEEN_S3_THREADS": "0"}, bootLine + "QUEEN_S3_THREADS=0 is not an integer in 1..=64"},
		{map[string]string{"QUEEN_S3_CHECKPOINT_EVERY": "0", "QUEEN_S3_MAX_WINDOW_MS": "50"}, bootLine + "QUEEN_S3_MAX_WINDOW_MS=50 is outside 100..=86400000. It is how long a window may stay open; the lag SLO is about this plus the safe lag"},
	}
	for _, c := range cases {
		got, err := confTestLoad(withBase(c.env))
		var ce *BootError
		if !errors.As(err, &ce) {
			t.Errorf("%q: %v, %v; want a ConfigError", c.env, got, err)
			continue
		}
		if ce.Line() != c.line {
			t.Errorf("%q:\n got %s\nwant %s", c.env, ce.Line(), c.line)
		}
		if strings.Contains(ce.Line(), "\n") || ce.Msg != strings.TrimPrefix(c.line, bootLine) {
			t.Errorf("%q: Msg = %q", c.env, ce.Msg)
		}
		if !strings.HasPrefix(ce.Msg, ce.Var) || ce.Var == "" {
			t.Errorf("%q: Var %q does not start the sentence %q", c.env, ce.Var, ce.Msg)
		}
	}
}

// TestEnvSetWithoutQueues: every per-sink variable alone stops the boot;
// node-wide ones alone leave the node to control-plane sinks.
func TestEnvSetWithoutQueues(t *testing.T) {
	perSink := map[string]string{
		"QUEEN_S3_ENDPOINT": "http://minio:9000", "QUEEN_S3_REGION": "us-east-1", "QUEEN_S3_BUCKET": "lake",
		"QUEEN_S3_ACCESS_KEY": "k", "QUEEN_S3_SECRET_KEY": "s", "QUEEN_S3_PREFIX": "queen", "QUEEN_S3_PATH_STYLE": "true",
		"QUEEN_S3_SSE": "AES256", "QUEEN_S3_SSE_KMS_KEY_ID": "k", "QUEEN_S3_FORMAT": "jsonl", "QUEEN_S3_COMPRESSION": "zstd",
		"QUEEN_S3_PARQUET_CODEC": "zstd", "QUEEN_S3_LAYOUT": "merged", "QUEEN_S3_ALIGN": "hour", "QUEEN_S3_START": "latest",
		"QUEEN_S3_TARGET_MB": "128", "QUEEN_S3_MAX_WINDOW_MS": "300000", "QUEEN_S3_SINK": "default",
	}
	for name, v := range perSink {
		_, err := confTestLoad(map[string]string{"QUEEN_S3_EMBEDDED": "true", name: v})
		want := bootLine + name + " is set but QUEEN_S3_QUEUES is not: the default tenant's sink runs only when QUEEN_S3_QUEUES names its queues. " +
			"Set QUEEN_S3_QUEUES, or unset " + name + " and leave the sinks to the control plane"
		var ce *BootError
		if !errors.As(err, &ce) || ce.Line() != want || ce.Var != name {
			t.Errorf("%s alone: %v\nwant %s", name, err, want)
		}
	}
	c, err := confTestLoad(map[string]string{
		"QUEEN_S3_EMBEDDED": "true", "QUEEN_S3_MEMORY_MB": "256", "QUEEN_S3_LEASE_TTL_MS": "10000", "QUEEN_S3_THREADS": "2",
	})
	if err != nil || !c.Embedded || c.Sink != nil || c.Node.MemoryBytes != 256<<20 || c.Node.LeaseTTL != 10*time.Second || c.Node.Threads != 2 {
		t.Errorf("node-wide variables alone: %+v, %v", c, err)
	}
}

func TestEnvIgnoredWarning(t *testing.T) {
	const tail = "the standalone 1.5 sink, and the sink inside the broker opens no port and logs through the broker"
	cases := []struct {
		env  map[string]string
		want []string
	}{
		{nil, nil},
		{map[string]string{"QUEEN_S3_LISTEN": ":8080"}, []string{"QUEEN_S3_LISTEN is set and ignored: it configured " + tail}},
		{map[string]string{"QUEEN_S3_LOG_FORMAT": "json"}, []string{"QUEEN_S3_LOG_FORMAT is set and ignored: it configured " + tail}},
		{map[string]string{"QUEEN_S3_LISTEN": ":8080", "QUEEN_S3_LOG_FORMAT": "json"},
			[]string{"QUEEN_S3_LISTEN and QUEEN_S3_LOG_FORMAT are set and ignored: they configured " + tail}},
		// §2d: the legacy client variables are simply not listed as ignored.
		{map[string]string{"QUEEN_URL": "http://localhost:6632", "QUEEN_TOKEN": "t", "QUEEN_S3_BIN": "/bin/queen-s3"}, nil},
		{map[string]string{"QUEEN_URL": "http://localhost:6632", "QUEEN_TOKEN": "t", "QUEEN_S3_LISTEN": ":1"},
			[]string{"QUEEN_S3_LISTEN is set and ignored: it configured " + tail}},
	}
	for _, c := range cases {
		for _, base := range []map[string]string{confTestBase(), {"QUEEN_S3_EMBEDDED": "true"}} {
			env := maps.Clone(base)
			maps.Copy(env, c.env)
			got, err := confTestLoad(env)
			if err != nil {
				t.Fatalf("%v: %v", c.env, err)
			}
			if !reflect.DeepEqual(got.Warnings, c.want) {
				t.Errorf("%v: warnings %q, want %q", c.env, got.Warnings, c.want)
			}
			for _, w := range got.Warnings {
				if strings.Contains(w, "QUEEN_URL") || strings.Contains(w, "QUEEN_TOKEN") || strings.Contains(w, "QUEEN_S3_BIN") {
					t.Errorf("%v: the warning names a legacy client variable: %s", c.env, w)
				}
			}
		}
	}
}

func TestEnvInstance(t *testing.T) {
	cases := []struct {
		id             uint64
		host, instance string
		want           string
	}{
		{1, "queen-0", "", "node-1@queen-0"},
		{3, "", "", "node-3@localhost"},
		{3, "  ", "", "node-3@localhost"},
		{3, "h", "pod-a", "pod-a/node-3"},
		{3, "h", " pod-a ", "pod-a/node-3"},
		{3, "h", "pod-a/node-3", "pod-a/node-3"},
		{3, "h", "pod-a/node-2", "pod-a/node-2/node-3"},
		{13, "h", "pod-a/node-3", "pod-a/node-3/node-13"},
	}
	for _, c := range cases {
		env := withBase(map[string]string{"QUEEN_S3_INSTANCE": c.instance})
		got, err := loadS3(func(k string) string { return env[k] }, c.id, c.host, 4)
		if err != nil || got.Node.Instance != c.want {
			t.Errorf("node %d on %q, QUEEN_S3_INSTANCE=%q: %v, %v; want %s", c.id, c.host, c.instance, got, err, c.want)
		}
	}
}

func TestEnvThreadsDefault(t *testing.T) {
	for cores, want := range map[int]int{0: 1, 1: 1, 2: 1, 4: 1, 7: 1, 8: 2, 11: 2, 12: 2, 16: 2, 64: 2} {
		env := confTestBase()
		got, err := loadS3(func(k string) string { return env[k] }, 1, "h", cores)
		if err != nil || got.Node.Threads != want {
			t.Errorf("%d cores: %v, %v; want %d threads", cores, got, err, want)
		}
	}
	env := confTestBase()
	got, err := LoadS3(func(k string) string { return env[k] }, 1, "h")
	if want := min(max(runtime.NumCPU()/4, 1), 2); err != nil || got.Node.Threads != want {
		t.Errorf("this machine's %d cores: %v, %v; want %d threads", runtime.NumCPU(), got, err, want)
	}
}

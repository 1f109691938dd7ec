package s3sink

import (
	"maps"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
)

// confTestBase is the smallest environment that runs the default tenant's
// sink: the spec's Try it, less its demo settings (queen/config's tests of
// the environment start from the same).
func confTestBase() map[string]string {
	return map[string]string{
		"QUEEN_S3_QUEUES":     "orders",
		"QUEEN_S3_ENDPOINT":   "http://minio:9000",
		"QUEEN_S3_REGION":     "us-east-1",
		"QUEEN_S3_BUCKET":     "lake",
		"QUEEN_S3_ACCESS_KEY": "queen",
		"QUEEN_S3_SECRET_KEY": "queen-secret-key",
	}
}

func withBase(over map[string]string) map[string]string {
	env := confTestBase()
	maps.Copy(env, over)
	return env
}

// confTestParse parses env as node 3 on host-a with 4 cores.
func confTestParse(env map[string]string) (*Settings, NodeSettings, error) {
	return ParseEnv(env, 3, "host-a", 4)
}

// confTestWant is what confTestBase parses as.
func confTestWant() (*Settings, NodeSettings) {
	s := DefaultSettings()
	s.Queues = []string{"orders"}
	s.Endpoint, s.Region, s.Bucket = "http://minio:9000", "us-east-1", "lake"
	s.AccessKey, s.SecretKey = "queen", "queen-secret-key"
	return &s, confDefaultNode(3, "host-a", 4)
}

// TestConfigValidateRefuses: Validate's sentence for each refusal, and
// NewEngine refusing the same settings with the same *ConfigError.
func TestConfigValidateRefuses(t *testing.T) {
	goodSink, goodNode := confTestWant()
	if _, err := NewEngine(DefaultTenant, *goodSink, goodNode, Deps{}); err != nil {
		t.Fatalf("NewEngine refuses valid settings: %v", err)
	}
	cases := []struct {
		edit func(s *Settings, n *NodeSettings)
		msg  string
	}{
		{func(s *Settings, n *NodeSettings) { s.Queues = nil }, "QUEEN_S3_QUEUES is not set: it is the queues the sink mirrors, * for every queue or names separated by commas, none empty"},
		{func(s *Settings, n *NodeSettings) { s.AllQueues = true }, "QUEEN_S3_QUEUES=*,orders is not a queue list. It is the queues the sink mirrors, * for every queue or names separated by commas, none empty"},
		{func(s *Settings, n *NodeSettings) { s.Queues = []string{"a", "a"} }, "QUEEN_S3_QUEUES=a,a is not a queue list. It is the queues the sink mirrors, * for every queue or names separated by commas, none empty"},
		{func(s *Settings, n *NodeSettings) { s.Endpoint = "http://x/" }, "QUEEN_S3_ENDPOINT=http://x/ is not an S3 endpoint. It is the S3 API base URL, http:// or https:// then host[:port], with no path"},
		{func(s *Settings, n *NodeSettings) { s.SecretKey = "" }, "QUEEN_S3_SECRET_KEY is not set: it is the secret access key the sink signs requests with"},
		{func(s *Settings, n *NodeSettings) { s.Prefix = "/queen" }, "QUEEN_S3_PREFIX=/queen is not a key prefix. It is the root of every key the sink writes, sidecars included, as segments separated by /, with no space, none of them empty, . or .."},
		{func(s *Settings, n *NodeSettings) { s.SSEKMSKeyID = "k" }, "QUEEN_S3_SSE_KMS_KEY_ID is set but QUEEN_S3_SSE is not set. It is the KMS key of aws:kms encryption, and goes only with QUEEN_S3_SSE=aws:kms"},
		{func(s *Settings, n *NodeSettings) { s.Compression = lakeformat.Snappy }, "QUEEN_S3_COMPRESSION=snappy is not a compression. It is one of zstd (zst), gzip (gz), none (off): the codec of JSONL objects"},
		{func(s *Settings, n *NodeSettings) { s.TargetBytes = 0 }, "QUEEN_S3_TARGET_MB=0 is outside 1..=5120. It is the uncompressed size, in MiB, at which a window closes"},
		{func(s *Settings, n *NodeSettings) { s.MaxWindow = 50 * time.Millisecond }, "QUEEN_S3_MAX_WINDOW_MS=50 is outside 100..=86400000. It is how long a window may stay open; the lag SLO is about this plus the safe lag"},
		{func(s *Settings, n *NodeSettings) { n.LeaseTTL = 500 * time.Millisecond }, "QUEEN_S3_LEASE_TTL_MS=500 is outside 1000..=3600000. It is how long a queue lease and a presence row live without a refresh, in milliseconds"},
		{func(s *Settings, n *NodeSettings) { n.Threads = 0 }, "QUEEN_S3_THREADS=0 is outside 1..=64. It is the worker threads of the sink's own runtime, shared by all tenants' sinks"},
		{func(s *Settings, n *NodeSettings) { n.CrashAt = "off" }, "QUEEN_S3_CRASH_AT=off is not a crash point. It is one of never (off, none), after_intent, mid_upload, after_upload, before_commit, after_commit: for tests only, the step of the commit sequence at which the broker aborts"},
	}
	for i, c := range cases {
		s, n := *goodSink, goodNode
		c.edit(&s, &n)
		err := s.Validate()
		if err == nil {
			err = n.Validate()
		}
		if err == nil || err.Error() != c.msg {
			t.Errorf("case %d: %v\nwant %s", i, err, c.msg)
		}
		want, _ := err.(*ConfigError)
		e, eerr := NewEngine(DefaultTenant, s, n, Deps{})
		if got, ok := eerr.(*ConfigError); e != nil || !ok || want == nil || *got != *want {
			t.Errorf("case %d: NewEngine answered an engine %v and %v; want Validate's %#v", i, e != nil, eerr, want)
		}
	}
}

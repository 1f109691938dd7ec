package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/klauspost/compress/zstd"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/s3sink/s3test"
)

// sinkEnv is the environment of a node whose sink mirrors queues into
// bucket on server gw, with short intervals so that tests finish quickly.
func sinkEnv(gw *s3test.Server, bucket string, extra ...string) []string {
	return append([]string{"QUEEN_S3_EMBEDDED=true", "QUEEN_S3_QUEUES=orders", "QUEEN_S3_ENDPOINT=" + gw.URL,
		"QUEEN_S3_REGION=" + gw.Region, "QUEEN_S3_PATH_STYLE=true", "QUEEN_S3_BUCKET=" + bucket,
		"QUEEN_S3_ACCESS_KEY=" + gw.Access, "QUEEN_S3_SECRET_KEY=" + gw.Secret, "QUEEN_S3_START=earliest",
		"QUEEN_S3_MAX_WINDOW_MS=2000", "QUEEN_S3_DISCOVERY_INTERVAL_MS=200", "QUEEN_S3_SAFE_GUARD_MS=500",
		"QUEEN_S3_LEASE_TTL_MS=3000"}, extra...)
}

// listBucket lists every key of a bucket.
func listBucket(t *testing.T, gw *s3test.Server, bucket string) []string {
	t.Helper()
	out, err := gw.Client().ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, *o.Key)
	}
	slices.Sort(keys)
	return keys
}

func getObject(t *testing.T, gw *s3test.Server, bucket, key string) []byte {
	t.Helper()
	out, err := gw.Client().GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// windowManifests decodes the manifest of every committed window in the
// bucket (the keys of /_queen/…/windows/), in key order.
func windowManifests(t *testing.T, gw *s3test.Server, bucket string) []*lakeformat.Manifest {
	t.Helper()
	var out []*lakeformat.Manifest
	for _, k := range listBucket(t, gw, bucket) {
		if !strings.Contains(k, "/_queen/") || !strings.Contains(k, "/windows/") {
			continue
		}
		m, err := lakeformat.DecodeManifest(getObject(t, gw, bucket, k))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// sinkBlock is one sink of the s3 block of GET /status.
type sinkBlock struct {
	Queues    []map[string]any `json:"queues"`
	Placement map[string]any   `json:"placement"`
}

// firstSink returns the first sink of a node's GET /status, or nil when
// the node does not answer (within ctx) or runs no sink.
func (n *node) firstSink(ctx context.Context) *sinkBlock {
	var st struct {
		S3 struct {
			Sinks []sinkBlock `json:"sinks"`
		} `json:"s3"`
	}
	if _, err := n.call(ctx, http.MethodGet, "/status", nil, &st); err != nil || len(st.S3.Sinks) == 0 {
		return nil
	}
	return &st.S3.Sinks[0]
}

// sinkQueue returns the s3 block's row of a queue from GET /status.
func (n *node) sinkQueue(queue string) map[string]any {
	sink := n.firstSink(context.Background())
	if sink == nil {
		return nil
	}
	for _, q := range sink.Queues {
		if q["name"] == queue {
			return q
		}
	}
	return nil
}

// waitCommitted waits until the node's sink committed at least k windows
// of queue. The status block is the only window into the sink a process
// offers, so it polls it, with a deadline.
func (n *node) waitCommitted(t *testing.T, queue string, k float64) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if q := n.sinkQueue(queue); q != nil {
			if c, _ := q["k"].(float64); c >= k {
				return q
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("node %d: window %v of %s not committed within 60 s; status %v\n%s", n.id, k, queue, n.sinkQueue(queue), n.log())
	return nil
}

// TestSinkTryIt is the spec's "Try it" run: three records on two
// partitions, one window, the data object and manifest at the spec's keys,
// the JSONL lines as the spec shows them.
func TestSinkTryIt(t *testing.T) {
	gw := s3test.Versitygw(t)
	gw.Bucket(t, "lake")
	n := single(t, sinkEnv(gw, "lake")...)
	ctx := deadline(t, 30*time.Second)
	if _, err := n.push(ctx,
		pushItem{Queue: "orders", Partition: "cust-1", Payload: json.RawMessage(`{"order":1,"status":"new","total":42.00}`)},
		pushItem{Queue: "orders", Partition: "cust-2", Payload: json.RawMessage(`{"order":2,"status":"new","total":17.50}`)},
		pushItem{Queue: "orders", Partition: "cust-1", Payload: json.RawMessage(`{"order":1,"status":"paid","total":42.00}`)},
	); err != nil {
		t.Fatal(err)
	}
	row := n.waitCommitted(t, "orders", 1)
	if row["state"] != "filling" || row["windowsCommitted"] != 1.0 || row["records"] != 3.0 {
		t.Errorf("status row %v", row)
	}
	exposition := n.exposition(t)
	for _, name := range []string{"queen_s3_lag_seconds", "queen_s3_safe_lag_seconds", "queen_s3_windows_committed_total",
		"queen_s3_records_written_total", "queen_s3_bytes_written_total", "queen_s3_records_lost_total", "queen_s3_window_records",
		"queen_s3_window_bytes", "queen_s3_buffer_bytes", "queen_s3_fetch_calls_total", "queen_s3_discovery_partitions",
		"queen_s3_s3_requests_total", "queen_s3_commit_precondition_lost_total", "queen_s3_checkpoint_age_windows",
		"queen_s3_queues_given_back_total"} {
		if !bytes.Contains(exposition, []byte("\n"+name)) {
			t.Errorf("/metrics/prometheus lacks %s", name)
		}
	}
	if !bytes.Contains(exposition, []byte(`queen_s3_windows_committed_total{queue="orders",tenant=""} 1`)) {
		t.Errorf("windows committed is not 1 for orders:\n%s", exposition)
	}
	keys := listBucket(t, gw, "lake")
	if len(keys) != 2 {
		t.Fatalf("bucket holds %v, want the window's data and its manifest", keys)
	}
	const tenant = "00000000-0000-0000-0000-000000000001"
	manifestKey := "queen/_queen/tenant=" + tenant + "/queue=orders/windows/0000000001.json"
	dataRe := regexp.MustCompile(`^queen/tenant=` + tenant + `/queue=orders/dt=(\d{4}-\d\d-\d\d)/hour=(\d\d)/w-0000000001-(\d+)-(\d+)\.jsonl\.zst$`)
	m := dataRe.FindStringSubmatch(keys[1])
	if keys[0] != manifestKey || m == nil {
		t.Fatalf("keys %v", keys)
	}
	manifest, err := lakeformat.DecodeManifest(getObject(t, gw, "lake", manifestKey))
	if err != nil {
		t.Fatal(err)
	}
	if manifest.Records != 3 || manifest.Partitions != 2 || len(manifest.Objects) != 1 || manifest.Objects[0].Key != keys[1] ||
		manifest.Writer != "queen-s3/2.0.0 jsonl+zstd" || manifest.Sink != "default" || len(manifest.Lost) != 0 {
		t.Errorf("manifest %+v", manifest)
	}
	if hour := manifest.TStart % 3_600_000_000; hour != 0 || fmt.Sprint(manifest.TStart) != m[3] {
		t.Errorf("window starts at %d (key %s), want the hour its first record falls in", manifest.TStart, m[3])
	}
	d, err := zstd.NewReader(bytes.NewReader(getObject(t, gw, "lake", keys[1])))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	text, err := io.ReadAll(d)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	want := []string{
		`{"partition":"cust-1","offset":0,"transactionId":"`, `","payload":{"order":1,"status":"new","total":42.00}}`,
		`{"partition":"cust-1","offset":1,"transactionId":"`, `","payload":{"order":1,"status":"paid","total":42.00}}`,
		`{"partition":"cust-2","offset":0,"transactionId":"`, `","payload":{"order":2,"status":"new","total":17.50}}`,
	}
	if len(lines) != 3 {
		t.Fatalf("data object has %d lines:\n%s", len(lines), text)
	}
	tsRe := regexp.MustCompile(`"ts":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"`)
	for i, l := range lines {
		if !strings.HasPrefix(l, want[2*i]) || !strings.HasSuffix(l, want[2*i+1]) || !tsRe.MatchString(l) {
			t.Errorf("line %d: %s", i, l)
		}
	}
}

// TestSinkControlPlaneOnly: QUEEN_S3_EMBEDDED=true with QUEEN_S3_QUEUES
// unset runs the supervisor with no default-tenant sink, ready for the
// control plane's: the s3 block is there, running, with no sink in it.
func TestSinkControlPlaneOnly(t *testing.T) {
	n := single(t, "QUEEN_S3_EMBEDDED=true", "QUEEN_S3_MEMORY_MB=64")
	type block struct {
		Mode  string `json:"mode"`
		Phase string `json:"phase"`
		Sinks []any  `json:"sinks"`
	}
	var st struct {
		S3 *block `json:"s3"`
	}
	waitFor(t, "the s3 block running", 10*time.Second, func() bool {
		_, err := n.call(context.Background(), http.MethodGet, "/status", nil, &st)
		return err == nil && st.S3 != nil && st.S3.Phase == "running"
	})
	if st.S3.Mode != "in-process" || st.S3.Sinks == nil || len(st.S3.Sinks) != 0 {
		t.Fatalf("s3 block %+v", st.S3)
	}
}

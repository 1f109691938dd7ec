package chaos

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos/check"
	"github.com/queen-mq/queen-go/tools/lake"
)

// WorkloadLake pushes records as WorkloadLog does, to a queue the
// embedded S3 sink mirrors into a versitygw bucket in windows of a
// second; the checks are the log's (check.CheckLog) and the lake's
// (lake.Verify, with the broker's log to compare against).
const WorkloadLake = "lake"

// The lake workload's queue and bucket.
const (
	lakeQueue  = "chaos-lake"
	lakeBucket = "lake"
)

// lakeSettleTimeout bounds the wait, after the heal, for the lake to
// hold every record of the log.
const lakeSettleTimeout = 60 * time.Second

// lakeClusterEnv starts versitygw under dir, creates the bucket and
// returns the sink's environment for every node: what a user sets for
// the default tenant's sink (s3-sink.md, "Try it"), with a window of one
// second, a lease of three and discovery every 200 ms, so that a run of
// 15 s commits a dozen windows and a killed owner's queue moves quickly.
func lakeClusterEnv(dir string) ([]string, func(), error) {
	s, err := startS3(dir)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Bucket(ctx, lakeBucket); err != nil {
		s.Stop()
		return nil, nil, err
	}
	return []string{"QUEEN_S3_EMBEDDED=true", "QUEEN_S3_QUEUES=" + lakeQueue, "QUEEN_S3_ENDPOINT=" + s.URL,
		"QUEEN_S3_REGION=" + s.Region, "QUEEN_S3_PATH_STYLE=true", "QUEEN_S3_BUCKET=" + lakeBucket,
		"QUEEN_S3_ACCESS_KEY=" + s.Access, "QUEEN_S3_SECRET_KEY=" + s.Secret, "QUEEN_S3_START=earliest",
		"QUEEN_S3_MAX_WINDOW_MS=1000", "QUEEN_S3_DISCOVERY_INTERVAL_MS=200", "QUEEN_S3_SAFE_GUARD_MS=500",
		"QUEEN_S3_LEASE_TTL_MS=3000"}, s.Stop, nil
}

// lakeWorkload is the log workload on the sink's queue, and the lake
// that mirrors it.
type lakeWorkload struct {
	logWorkload
	// lake says where the lake is, from the nodes' own QUEEN_S3_*
	// settings, and which broker to compare it with.
	lake lake.Config
}

// newLakeWorkload is the lake workload on c, whose nodes run the sink
// lakeClusterEnv configured.
func newLakeWorkload(c *Cluster) workload {
	env := c.Nodes[0].env
	return &lakeWorkload{
		logWorkload: logWorkload{c: c, queue: lakeQueue, partitions: []string{"p0", "p1", "p2"}, writers: 4},
		lake: lake.Config{Endpoint: envValue(env, "QUEEN_S3_ENDPOINT"), Region: envValue(env, "QUEEN_S3_REGION"),
			Bucket: envValue(env, "QUEEN_S3_BUCKET"), PathStyle: envValue(env, "QUEEN_S3_PATH_STYLE") == "true",
			AccessKey: envValue(env, "QUEEN_S3_ACCESS_KEY"), SecretKey: envValue(env, "QUEEN_S3_SECRET_KEY"),
			Queue: lakeQueue, Broker: c.Nodes[0].URL, HTTPClient: httpClient},
	}
}

// finish checks the log as the log workload does; then waits until the
// lake's last window ends after the log's last record (the sink has
// committed everything the log holds) and verifies the lake against the
// broker. Each problem Verify reports is an anomaly of kind
// "lake-<check>" (lake-duplicate, lake-missing, ...); a lake that does
// not catch up within lakeSettleTimeout is one of kind lake-incomplete.
func (l *lakeWorkload) finish(ctx context.Context) (ops, answered int, anomalies []check.Anomaly, err error) {
	ops, answered, anomalies, err = l.logWorkload.finish(ctx)
	if err != nil {
		return ops, answered, anomalies, err
	}
	last, err := lastStamp(ctx, l.c.Nodes[0], l.queue, l.partitions)
	if err != nil {
		return ops, answered, anomalies, err
	}
	if a := l.settle(ctx, last); a != nil {
		anomalies = append(anomalies, *a)
	}
	r, err := lake.Verify(ctx, l.lake)
	if err != nil {
		return ops, answered, anomalies, fmt.Errorf("lake verify: %w", err)
	}
	return ops, answered, append(anomalies, lakeAnomalies(r)...), nil
}

// lakeAnomalies turns each problem of a Verify report into an anomaly of
// kind "lake-<check>", and the problems it only counted into one of kind
// lake-more.
func lakeAnomalies(r lake.Report) []check.Anomaly {
	var out []check.Anomaly
	for _, p := range r.Problems {
		out = append(out, check.Anomaly{Kind: "lake-" + string(p.Check), Detail: p.String()})
	}
	if r.Dropped > 0 {
		out = append(out, check.Anomaly{Kind: "lake-more", Detail: fmt.Sprintf("and %d more problems Verify did not keep", r.Dropped)})
	}
	return out
}

// settle polls the lake's manifests until the last committed window ends
// after last (µs; 0: the log is empty, nothing to wait for), or the
// timeout: then it is an anomaly naming both stamps and what each node's
// sink says of the queue.
func (l *lakeWorkload) settle(ctx context.Context, last int64) *check.Anomaly {
	deadline := time.Now().Add(lakeSettleTimeout)
	var tEnd int64
	var lerr error
	for last > 0 {
		ws, err := lake.List(ctx, l.lake)
		lerr = err
		for _, w := range ws {
			if w.Manifest != nil {
				tEnd = max(tEnd, w.Manifest.TEnd)
			}
		}
		if tEnd > last || time.Now().After(deadline) || !sleep(ctx, 300*time.Millisecond) {
			break
		}
	}
	if tEnd > last || last == 0 {
		return nil
	}
	var rows []string
	for _, n := range l.c.Nodes {
		rows = append(rows, fmt.Sprintf("node %d: %s", n.ID, sinkRow(ctx, n, l.queue)))
	}
	return &check.Anomaly{Kind: "lake-incomplete", Detail: fmt.Sprintf("%s after the heal the last window ends at %s, the log's last record is stamped %s (list error %v); %s",
		lakeSettleTimeout, stamp(tEnd), stamp(last), lerr, strings.Join(rows, "; "))}
}

// lastStamp is the greatest stamp (µs) of the queue's records on n: its
// partitions' last records, since stamps rise with offsets. 0 for an
// empty log.
func lastStamp(ctx context.Context, n *Node, queue string, partitions []string) (int64, error) {
	hw, err := highWatermarks(ctx, n, queue, partitions)
	if err != nil {
		return 0, err
	}
	var last int64
	for part, h := range hw {
		if h == 0 {
			continue
		}
		var out struct {
			Entries []struct {
				Records []struct{ Ts string }
				Error   string
			}
		}
		if _, err := n.Call(ctx, http.MethodPost, "/api/v1/fetch", map[string]any{"entries": []map[string]any{
			{"queue": queue, "partition": part, "offset": h - 1, "maxBytes": 1 << 16}}}, &out); err != nil {
			return 0, err
		}
		if len(out.Entries) != 1 || len(out.Entries[0].Records) == 0 {
			return 0, fmt.Errorf("fetch %s/%s at %d: no record (%+v)", queue, part, h-1, out.Entries)
		}
		t, err := time.Parse(time.RFC3339Nano, out.Entries[0].Records[0].Ts)
		if err != nil {
			return 0, fmt.Errorf("fetch %s/%s at %d: %w", queue, part, h-1, err)
		}
		last = max(last, t.UnixMicro())
	}
	return last, nil
}

// sinkRow is what n's GET /status says of the sink's queue: its state,
// holder, last k, completeThrough and last error.
func sinkRow(ctx context.Context, n *Node, queue string) string {
	var st struct {
		S3 struct {
			Sinks []struct {
				Phase  string
				Queues []map[string]any
			}
		}
	}
	if _, err := n.Call(ctx, http.MethodGet, "/status", nil, &st); err != nil {
		return err.Error()
	}
	for _, s := range st.S3.Sinks {
		for _, q := range s.Queues {
			if q["name"] == queue {
				return fmt.Sprintf("phase %s state %v heldBy %v k %v completeThrough %v lastError %v",
					s.Phase, q["state"], q["heldBy"], q["k"], q["completeThrough"], q["lastError"])
			}
		}
	}
	return "no sink row for " + queue
}

// stamp renders µs since the epoch as RFC 3339.
func stamp(us int64) string { return time.UnixMicro(us).UTC().Format(time.RFC3339Nano) }

// envValue is the value of name in env (NAME=value; the last wins), or "".
func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/s3sink/s3test"
)

// lakeOffsets lists, per partition, the offsets every committed window of
// queue orders holds, and its lost ranges.
func lakeOffsets(t *testing.T, gw *s3test.Server, bucket string) (held map[string][]int64, lost []lakeformat.LostRange) {
	t.Helper()
	held = map[string][]int64{}
	for _, m := range windowManifests(t, gw, bucket) {
		lost = append(lost, m.Lost...)
		for _, o := range m.Objects {
			recs, err := lakeformat.Decode(getObject(t, gw, bucket, o.Key), m.Format, m.Codec)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				held[r.Partition] = append(held[r.Partition], r.Offset)
			}
		}
	}
	for _, offs := range held {
		slices.Sort(offs)
	}
	return held, lost
}

// waitLake waits until the lake accounts for every offset below each
// partition's high watermark the map names, by a record or a lost range.
func waitLake(t *testing.T, gw *s3test.Server, n *node, want map[string]int64) (map[string][]int64, []lakeformat.LostRange) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		held, lost := lakeOffsets(t, gw, "lake")
		done := true
		for p, hwm := range want {
			seen := int64(len(held[p]))
			for _, l := range lost {
				if l.Partition == p {
					seen += l.To - l.From + 1
				}
			}
			done = done && seen >= hwm
		}
		if done || time.Now().After(deadline) {
			if !done {
				t.Fatalf("the lake does not account for %v within 60 s: held %v lost %v\n%s", want, held, lost, n.log())
			}
			return held, lost
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// verifyReport runs queen-lake verify against the broker and returns its
// report, failing the test when it finds a problem.
func verifyReport(t *testing.T, gw *s3test.Server, n *node) string {
	t.Helper()
	out, err := exec.Command(lakeBin, "verify", "-endpoint", gw.URL, "-region", gw.Region, "-bucket", "lake", "-path-style",
		"-access-key", gw.Access, "-secret-key", gw.Secret, "-queue", "orders", "-broker", n.url).CombinedOutput()
	if err != nil {
		t.Fatalf("queen-lake verify: %v\n%s", err, out)
	}
	return string(out)
}

// TestSinkStartPointSurvivesARestart: with QUEEN_S3_START=latest, a
// broker killed before the sink's first commit starts the queue again
// where the sink first ran it, so the records pushed in between reach the
// lake. (Before, the restarted sink began at a new "latest" and they were
// in no window and reported nowhere.)
func TestSinkStartPointSurvivesARestart(t *testing.T) {
	gw := s3test.Versitygw(t)
	gw.Bucket(t, "lake")
	env := sinkEnv(gw, "lake", "QUEEN_S3_START=latest")
	n := single(t, append(env, "QUEEN_S3_MAX_WINDOW_MS=600000")...)
	ctx := deadline(t, 90*time.Second)
	pushOrders(ctx, t, n, 0, 3) // creates the queue: before the start point
	deadline := time.Now().Add(30 * time.Second)
	for q := n.sinkQueue("orders"); q == nil || q["state"] != "filling"; q = n.sinkQueue("orders") {
		if time.Now().After(deadline) {
			t.Fatalf("the sink never ran the queue: %v\n%s", q, n.log())
		}
		time.Sleep(100 * time.Millisecond)
	}
	pushOrders(ctx, t, n, 3, 6) // after the start point, before any commit
	n.signal(syscall.SIGKILL)

	n.env = append(n.env, "QUEEN_S3_MAX_WINDOW_MS=2000")
	n.start()
	n.waitReady()
	pushOrders(ctx, t, n, 9, 3)
	held, lost := waitLake(t, gw, n, map[string]int64{"cust-0": 3, "cust-1": 3, "cust-2": 3})
	want := []int64{1, 2, 3}
	for p := range 3 {
		if got := held[fmt.Sprintf("cust-%d", p)]; !slices.Equal(got, want) {
			t.Errorf("cust-%d: the lake holds offsets %v, want %v (offset 0 came before the start point)", p, got, want)
		}
	}
	if len(lost) != 0 {
		t.Errorf("lost ranges %v", lost)
	}
	verifyReport(t, gw, n)
}

// partitionStarts answers each partition's log start, from
// partitions/changed.
func partitionStarts(ctx context.Context, t *testing.T, n *node, queue string) map[string]int64 {
	t.Helper()
	var out struct {
		Entries []struct {
			Partitions []struct {
				Name     string `json:"name"`
				LogStart int64  `json:"logStart"`
			} `json:"partitions"`
		} `json:"entries"`
	}
	if _, err := n.call(ctx, http.MethodPost, "/api/v1/partitions/changed", map[string]any{"entries": []map[string]any{{"queue": queue}}}, &out); err != nil {
		t.Fatal(err)
	}
	starts := map[string]int64{}
	for _, p := range out.Entries[0].Partitions {
		starts[p.Name] = p.LogStart
	}
	return starts
}

// TestSinkReportsRecordsTrimmedWhileItWasDown: records that retention
// deletes while the sink is down, past its commit pointer, are in the
// next manifest's lost ranges after the sink comes back, exactly, and
// queen-lake verify accounts for them as lost. (Before, the restarted
// sink began each partition at the first record left, and the deleted
// ones were reported nowhere.)
func TestSinkReportsRecordsTrimmedWhileItWasDown(t *testing.T) {
	gw := s3test.Versitygw(t)
	gw.Bucket(t, "lake")
	n := single(t, append(sinkEnv(gw, "lake"), "RETENTION_INTERVAL=200")...)
	ctx := deadline(t, 120*time.Second)
	pushOrders(ctx, t, n, 0, 6) // offsets 0 and 1 of each partition
	n.waitCommitted(t, "orders", 1)
	waitLake(t, gw, n, map[string]int64{"cust-0": 2, "cust-1": 2, "cust-2": 2})
	n.signal(syscall.SIGTERM)

	// The broker without its sink: retention of one second deletes what
	// is pushed now, which the lake does not hold.
	sinkOff := append(append([]string(nil), n.env...), "QUEEN_S3_EMBEDDED=false")
	withSink := n.env
	n.env = sinkOff
	n.start()
	n.waitReady()
	if err := n.configure(ctx, "orders", map[string]any{"retentionEnabled": true, "retentionSeconds": 1}); err != nil {
		t.Fatalf("configure: %v", err)
	}
	pushOrders(ctx, t, n, 6, 9) // offsets 2..4 of each partition
	deadline := time.Now().Add(30 * time.Second)
	for starts := partitionStarts(ctx, t, n, "orders"); starts["cust-0"] < 5 || starts["cust-1"] < 5 || starts["cust-2"] < 5; starts = partitionStarts(ctx, t, n, "orders") {
		if time.Now().After(deadline) {
			t.Fatalf("retention did not delete the records: log starts %v\n%s", starts, n.log())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := n.configure(ctx, "orders", map[string]any{"retentionEnabled": false}); err != nil {
		t.Fatalf("configure: %v", err)
	}
	n.signal(syscall.SIGTERM)

	n.env = withSink
	n.start()
	n.waitReady()
	pushOrders(ctx, t, n, 15, 3) // offset 5 of each partition
	held, lost := waitLake(t, gw, n, map[string]int64{"cust-0": 6, "cust-1": 6, "cust-2": 6})
	for p := range 3 {
		name := fmt.Sprintf("cust-%d", p)
		if got := held[name]; !slices.Equal(got, []int64{0, 1, 5}) {
			t.Errorf("%s: the lake holds offsets %v, want [0 1 5]", name, got)
		}
		var ranges []string
		for _, l := range lost {
			if l.Partition == name {
				ranges = append(ranges, fmt.Sprintf("%d-%d", l.From, l.To))
			}
		}
		if strings.Join(ranges, ",") != "2-4" {
			t.Errorf("%s: lost ranges %v, want 2-4", name, ranges)
		}
	}
	if report := verifyReport(t, gw, n); !strings.Contains(report, "9 lost") && !strings.Contains(report, "lost") {
		t.Errorf("verify does not report the lost records:\n%s", report)
	}
}

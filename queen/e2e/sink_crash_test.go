package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/s3sink/s3test"
)

// TestSinkCrashPoints kills the broker (QUEEN_S3_CRASH_AT) at each of the
// five points of the commit sequence, restarts it, and checks the window
// ends in the bucket once, under the key and with the bytes an uncrashed
// run writes: what lakeformat encodes from the broker's records of the
// window, and, for objects written before the crash, the very same bytes.
func TestSinkCrashPoints(t *testing.T) {
	for _, point := range []string{"after_intent", "mid_upload", "after_upload", "before_commit", "after_commit"} {
		t.Run(point, func(t *testing.T) {
			gw := s3test.Versitygw(t)
			gw.Bucket(t, "lake")
			env := sinkEnv(gw, "lake")
			n := single(t, append(env, "QUEEN_S3_CRASH_AT="+point)...)
			ctx := deadline(t, 60*time.Second)
			pushed := pushOrders(ctx, t, n, 0, 12)
			select {
			case <-n.exited:
			case <-ctx.Done():
				t.Fatalf("QUEEN_S3_CRASH_AT=%s: the broker did not abort\n%s", point, n.log())
			}
			n.cmd = nil
			before := bucketDigests(t, gw, "lake")

			// The same node again, without the crash point: it takes its
			// lease back at once and redoes or finishes the window.
			n.env = append(n.env, "QUEEN_S3_CRASH_AT=never")
			n.start()
			n.waitReady()
			n.waitCommitted(t, "orders", 1)
			after := bucketDigests(t, gw, "lake")
			for key, sum := range before {
				if key == manifestKey(1) {
					continue // the manifest carries committedAt, the wall clock of its commit
				}
				if after[key] != sum {
					t.Errorf("%s was rewritten with other bytes after the crash", key)
				}
			}
			checkWindowBytes(t, gw, n, 1)
			verifyLake(t, gw, "lake", n, "orders")
			if got := countLakeRecords(t, gw, "lake"); got != pushed {
				t.Errorf("the lake holds %d records, %d were pushed", got, pushed)
			}
		})
	}
}

// pushOrders pushes n records to queue orders over three partitions.
func pushOrders(ctx context.Context, t *testing.T, n *node, from, count int) int {
	t.Helper()
	var items []pushItem
	for i := from; i < from+count; i++ {
		items = append(items, pushItem{Queue: "orders", Partition: fmt.Sprintf("cust-%d", i%3),
			TransactionID: fmt.Sprintf("tx-%d", i), Payload: json.RawMessage(fmt.Sprintf(`{"n":%d,"total":42.00}`, i))})
	}
	if _, err := n.push(ctx, items...); err != nil {
		t.Fatal(err)
	}
	return count
}

func manifestKey(k int) string {
	return fmt.Sprintf("queen/_queen/tenant=00000000-0000-0000-0000-000000000001/queue=orders/windows/%010d.json", k)
}

// bucketDigests maps every key of the bucket to its SHA-256.
func bucketDigests(t *testing.T, gw *s3test.Server, bucket string) map[string]string {
	out := map[string]string{}
	for _, k := range listBucket(t, gw, bucket) {
		s := sha256.Sum256(getObject(t, gw, bucket, k))
		out[k] = hex.EncodeToString(s[:])
	}
	return out
}

// checkWindowBytes re-encodes window k from the broker's records with
// lakeformat and compares with the objects its manifest names: a window
// rebuilt anywhere is the same bytes under the same key.
func checkWindowBytes(t *testing.T, gw *s3test.Server, n *node, k int) {
	t.Helper()
	m, err := lakeformat.DecodeManifest(getObject(t, gw, "lake", manifestKey(k)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var recs []lakeformat.Record
	for p := 0; p < 3; p++ {
		name := fmt.Sprintf("cust-%d", p)
		got, _, err := n.fetchAll(ctx, "orders", name)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range got {
			ts, err := lakeformat.ParseTs(r.Ts)
			if err != nil {
				t.Fatal(err)
			}
			if ts >= m.TStart && ts < m.TEnd {
				recs = append(recs, lakeformat.Record{Partition: name, Offset: r.Offset, TransactionID: r.TransactionID, Ts: ts, Payload: r.Payload})
			}
		}
	}
	keys, err := lakeformat.NewKeys("queen")
	if err != nil {
		t.Fatal(err)
	}
	w := lakeformat.Window{Tenant: m.Tenant, Queue: m.Queue, K: m.K, TStart: m.TStart, TEnd: m.TEnd}
	objs, err := lakeformat.EncodeWindow(keys, w, lakeformat.AlignHour, m.Layout, lakeformat.Options{Format: m.Format, Codec: m.Codec,
		Tenant: m.Tenant, Queue: m.Queue}, recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != len(m.Objects) {
		t.Fatalf("window %d: %d objects from the broker's records, the manifest names %d", k, len(objs), len(m.Objects))
	}
	for i, o := range objs {
		if o.Key != m.Objects[i].Key || hex.EncodeToString(o.SHA256[:]) != m.Objects[i].SHA256 {
			t.Errorf("window %d object %d: the lake has %s %s, an uncrashed run writes %s %x", k, i,
				m.Objects[i].Key, m.Objects[i].SHA256, o.Key, o.SHA256)
		}
	}
}

// verifyLake runs queen-lake verify, with the broker to compare against:
// every manifest's objects exist with their sha256 and record counts, no
// record is in two windows, and every record the broker holds below the
// last committed window's end is in the lake exactly once.
func verifyLake(t *testing.T, gw *s3test.Server, bucket string, n *node, queue string) {
	t.Helper()
	out, err := exec.Command(lakeBin, "verify", "-endpoint", gw.URL, "-region", gw.Region, "-bucket", bucket, "-path-style",
		"-access-key", gw.Access, "-secret-key", gw.Secret, "-queue", queue, "-broker", n.url).CombinedOutput()
	if err != nil {
		t.Fatalf("queen-lake verify: %v\n%s", err, out)
	}
}

// countLakeRecords sums the records of every committed window's manifest.
func countLakeRecords(t *testing.T, gw *s3test.Server, bucket string) int {
	n := 0
	for _, m := range windowManifests(t, gw, bucket) {
		n += int(m.Records)
	}
	return n
}

package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/s3sink/s3test"
)

// TestSinkBucketFaults puts a fault proxy between the sink and versitygw:
// the bucket down, answering 500s, cutting uploads midway. Each time the
// sink backs off and reports the error in /status, and once the bucket is
// back the lake is complete with nothing twice.
func TestSinkBucketFaults(t *testing.T) {
	gw := s3test.Versitygw(t)
	gw.Bucket(t, "lake")
	proxy := s3test.FaultProxy(t, gw.URL)
	env := sinkEnv(gw, "lake", "QUEEN_S3_ENDPOINT="+proxy.URL)
	n := single(t, env...)
	ctx := deadline(t, 120*time.Second)
	pushed := 0
	faults := []struct {
		name  string
		apply func()
	}{
		{"down", proxy.Down},
		{"500s", func() { proxy.Errors(-1) }},
		{"cut uploads", func() { proxy.CutUploads(64) }},
	}
	for i, f := range faults {
		since := time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
		f.apply()
		pushed += pushOrders(ctx, t, n, 100*i, 9)
		waitFor(t, "the sink to report the bucket's error ("+f.name+")", 60*time.Second, func() bool {
			e, _ := n.sinkQueue("orders")["lastError"].(map[string]any)
			return e != nil && fmt.Sprint(e["at"]) > since
		})
		proxy.Heal()
		n.waitComplete(t, "orders", "cust-0", "cust-1", "cust-2")
	}
	verifyLake(t, gw, "lake", n, "orders")
	if got := countLakeRecords(t, gw, "lake"); got != pushed {
		t.Errorf("the lake holds %d records, %d were pushed", got, pushed)
	}
}

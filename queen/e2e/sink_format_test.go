package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/s3sink/s3test"
)

// TestSinkFormats runs the sink with Parquet and the per-partition layout,
// verified as the JSONL runs are: the objects are what lakeformat encodes
// from the broker's records, and queen-lake finds every record once.
func TestSinkFormats(t *testing.T) {
	for _, c := range []struct{ name, ext string }{
		{"QUEEN_S3_FORMAT=parquet QUEEN_S3_PARQUET_CODEC=zstd", ".parquet"},
		{"QUEEN_S3_FORMAT=parquet QUEEN_S3_PARQUET_CODEC=snappy QUEEN_S3_LAYOUT=per-partition", ".parquet"},
		{"QUEEN_S3_FORMAT=jsonl QUEEN_S3_COMPRESSION=gzip QUEEN_S3_LAYOUT=per-partition", ".jsonl.gz"},
	} {
		t.Run(c.name, func(t *testing.T) {
			gw := s3test.Versitygw(t)
			gw.Bucket(t, "lake")
			n := single(t, append(sinkEnv(gw, "lake"), strings.Fields(c.name)...)...)
			ctx := deadline(t, 60*time.Second)
			pushed := pushOrders(ctx, t, n, 0, 30)
			n.waitComplete(t, "orders", "cust-0", "cust-1", "cust-2")
			objects := 0
			for _, k := range listBucket(t, gw, "lake") {
				if strings.HasSuffix(k, c.ext) {
					objects++
					if strings.Contains(c.name, "per-partition") && !strings.Contains(k, "-p-cust-") {
						t.Errorf("per-partition object %s does not name its partition", k)
					}
				}
			}
			if objects == 0 {
				t.Fatalf("no %s object in the bucket", c.ext)
			}
			checkWindowBytes(t, gw, n, 1)
			verifyLake(t, gw, "lake", n, "orders")
			if got := countLakeRecords(t, gw, "lake"); got != pushed {
				t.Errorf("the lake holds %d records, %d were pushed", got, pushed)
			}
		})
	}
}

package lake_test

import (
	"context"
	"sync"
	"testing"

	"github.com/queen-mq/queen-go/s3sink/s3test"
	"github.com/queen-mq/queen-go/tools/lake"
)

// TestVerifyProgress checks Config.Progress: one call at the start with
// nothing done, then one per object, the count rising by one up to the
// manifests' total, the bytes to theirs, with the total fixed throughout.
func TestVerifyProgress(t *testing.T) {
	srv := s3test.Fake(t)
	b := builtBucket(t, srv, newFixture())
	var (
		mu     sync.Mutex
		seen   []lake.Progress
		inCall bool
	)
	cfg := b.config()
	cfg.Concurrency = 4
	cfg.Progress = func(p lake.Progress) {
		mu.Lock()
		if inCall {
			t.Error("Progress called while another call runs")
		}
		inCall = true
		seen = append(seen, p)
		inCall = false
		mu.Unlock()
	}
	r, err := lake.Verify(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Objects < 2 {
		t.Fatalf("the fixture has %d objects; the test needs several", r.Objects)
	}
	if len(seen) != r.Objects+1 {
		t.Fatalf("%d calls for %d objects; want one more than the objects", len(seen), r.Objects)
	}
	for i, p := range seen {
		if p.Objects != i || p.TotalObjects != r.Objects || p.TotalBytes != r.Bytes {
			t.Fatalf("call %d: %+v; want %d of %d objects, %d bytes in all", i, p, i, r.Objects, r.Bytes)
		}
		if i > 0 && p.Bytes <= seen[i-1].Bytes {
			t.Fatalf("call %d: bytes %d after %d; want them rising", i, p.Bytes, seen[i-1].Bytes)
		}
	}
	if last := seen[len(seen)-1]; last.Bytes != r.Bytes {
		t.Fatalf("last call %+v; want all %d bytes", last, r.Bytes)
	}
}

package s3sink

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// hangingKV answers no call until its context ends, as a leader that
// stopped does.
type hangingKV struct{}

func (hangingKV) Get(ctx context.Context, _, _ string, _ []string) ([]Row, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (hangingKV) Batch(ctx context.Context, _, _ string, _ []KVOp) (BatchResult, error) {
	<-ctx.Done()
	return BatchResult{}, ctx.Err()
}

func (hangingKV) Prefix(ctx context.Context, _, _, _, _ string, _ int) ([]Row, string, error) {
	<-ctx.Done()
	return nil, "", ctx.Err()
}

func TestCallTimeout(t *testing.T) {
	for _, c := range []struct{ ttl, want time.Duration }{
		{time.Second, 500 * time.Millisecond},
		{3 * time.Second, 500 * time.Millisecond},
		{6 * time.Second, time.Second},
		{30 * time.Second, 5 * time.Second},
		{time.Hour, 5 * time.Second},
	} {
		if got := CallTimeout(c.ttl); got != c.want {
			t.Errorf("CallTimeout(%v) = %v, want %v", c.ttl, got, c.want)
		}
	}
	for _, c := range []struct{ ttl, want time.Duration }{
		{1000 * time.Millisecond, time.Second}, {1999 * time.Millisecond, time.Second}, {30 * time.Second, 30 * time.Second},
	} {
		if got := leaseTTL(c.ttl); got != c.want {
			t.Errorf("leaseTTL(%v) = %v, want %v", c.ttl, got, c.want)
		}
	}
}

// TestBoundedKV: a call to a KV that never answers ends at its deadline,
// on every kind of call, and each is timed on queen_s3_kv_call_seconds.
func TestBoundedKV(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewRegistry()
		m := NewMetrics(reg)
		kv := boundedKV{kv: hangingKV{}, timeout: CallTimeout(30 * time.Second), clock: realClock{}, metrics: m, tenant: DefaultTenant}
		start := time.Now()
		_, err := kv.Batch(context.Background(), DefaultTenant, Namespace, nil)
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 5*time.Second {
			t.Errorf("Batch: %v after %v, want the deadline after 5s", err, time.Since(start))
		}
		start = time.Now()
		if _, err := kv.Get(context.Background(), DefaultTenant, Namespace, []string{"k"}); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 5*time.Second {
			t.Errorf("Get: %v after %v", err, time.Since(start))
		}
		if _, _, err := kv.Prefix(context.Background(), DefaultTenant, Namespace, "p", "", 1); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Prefix: %v", err)
		}
		// A caller's shorter deadline wins.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start = time.Now()
		kv.Batch(ctx, DefaultTenant, Namespace, nil)
		if time.Since(start) != time.Second {
			t.Errorf("a caller's 1s deadline ended the call after %v", time.Since(start))
		}
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() != "queen_s3_kv_call_seconds" {
				continue
			}
			if n := len(mf.GetMetric()); n != 3 {
				t.Errorf("queen_s3_kv_call_seconds has %d series, want get, batch and prefix", n)
			}
			for _, mt := range mf.GetMetric() {
				if mt.GetLabel()[0].GetValue() == "batch" {
					if h := mt.GetHistogram(); h.GetSampleCount() != 2 || h.GetSampleSum() != 6 {
						t.Errorf("batch calls timed %d, %v s in all; want 2, 6 s", h.GetSampleCount(), h.GetSampleSum())
					}
				}
			}
		}
	})
}

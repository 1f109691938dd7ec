package s3sink

import (
	"context"
	"time"
)

// CallTimeout is the deadline of each of the sink's KV calls under a lease
// TTL of ttl: a sixth of it, between 500 ms and 5 s. A call to a leader
// that stopped answering ends there, outcome unknown, and the sink reads
// back and tries again, by then against the new leader. From 3 s up a
// refresh a third of the TTL into the lease, its read-back and a second
// try fit before the lease runs out; below, the 500 ms floor leaves room
// for fewer tries (a leader change within one second is not to be had).
func CallTimeout(ttl time.Duration) time.Duration {
	return min(max(ttl/6, 500*time.Millisecond), 5*time.Second)
}

// leaseTTL is the lifetime the KV store gives the lease and presence rows
// under QUEEN_S3_LEASE_TTL_MS: whole seconds, at least one.
func leaseTTL(ttl time.Duration) time.Duration {
	return max(ttl.Truncate(time.Second), time.Second)
}

// boundedKV is the KV as the engine calls it: every call with its
// deadline (CallTimeout), and timed on queen_s3_kv_call_seconds.
type boundedKV struct {
	kv      KV
	timeout time.Duration
	clock   Clock
	metrics *Metrics
	tenant  string
}

func (b boundedKV) call(ctx context.Context, what string) (context.Context, func()) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	start := b.clock.Now()
	return ctx, func() {
		cancel()
		b.metrics.kvCall(b.tenant, what, b.clock.Now().Sub(start))
	}
}

func (b boundedKV) Get(ctx context.Context, tenant, ns string, keys []string) ([]Row, error) {
	ctx, done := b.call(ctx, "get")
	defer done()
	return b.kv.Get(ctx, tenant, ns, keys)
}

func (b boundedKV) Batch(ctx context.Context, tenant, ns string, ops []KVOp) (BatchResult, error) {
	ctx, done := b.call(ctx, "batch")
	defer done()
	return b.kv.Batch(ctx, tenant, ns, ops)
}

func (b boundedKV) Prefix(ctx context.Context, tenant, ns, prefix, after string, limit int) ([]Row, string, error) {
	ctx, done := b.call(ctx, "prefix")
	defer done()
	return b.kv.Prefix(ctx, tenant, ns, prefix, after, limit)
}

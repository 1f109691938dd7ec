package s3sink

import (
	"context"
	"sync"
	"time"
)

// Prober is an ObjectStore that can check the bucket answers (HEAD of
// <prefix>/; a 404 is an answer).
type Prober interface {
	Probe(ctx context.Context, prefix string) error
}

// bucketState is what the last probe found.
type bucketState struct {
	mu        sync.Mutex
	reachable *bool
	err       *string
	checkedAt time.Time
}

// probe checks the bucket before any queue starts, retrying with backoff
// (1 s doubling to 30 s): a bucket that does not answer never stops the
// boot, the queues wait. It returns false when ctx ended or the sink drains.
func (e *Engine) probe(ctx context.Context) bool {
	p, ok := e.store.(Prober)
	if !ok {
		return true
	}
	for backoff := time.Second; ; backoff = min(2*backoff, 30*time.Second) {
		err := p.Probe(ctx, e.keys.Prefix())
		e.bucket.mu.Lock()
		up := err == nil
		e.bucket.reachable, e.bucket.checkedAt = &up, e.now()
		e.bucket.err = nil
		if err != nil {
			msg := err.Error()
			e.bucket.err = &msg
		}
		e.bucket.mu.Unlock()
		if up {
			return true
		}
		e.log.Warn("the bucket did not answer the probe; queues wait", "err", err, "retryIn", backoff)
		if !e.sleep(ctx, backoff) {
			return false
		}
	}
}

func (e *Engine) bucketReport() BucketReport {
	e.bucket.mu.Lock()
	defer e.bucket.mu.Unlock()
	r := BucketReport{Reachable: e.bucket.reachable, Error: e.bucket.err, Name: e.set.Bucket, Endpoint: e.set.Endpoint,
		Region: e.set.Region, Prefix: e.keys.Prefix()}
	if !e.bucket.checkedAt.IsZero() {
		s := e.bucket.checkedAt.UTC().Format("2006-01-02T15:04:05.000000Z")
		r.CheckedAt = &s
	}
	return r
}

// Package tick runs a node's periodic jobs (retention, the timers' firer,
// the ephemeral store's sweep): one call every interval until the job's
// context ends.
package tick

import (
	"context"
	"time"
)

// Every calls fn every interval, the first time one interval from now,
// until ctx ends. fn runs on the caller's goroutine: a call that takes
// longer than interval delays the next one (the ticks it spans are
// dropped), never overlaps it.
func Every(ctx context.Context, interval time.Duration, fn func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}

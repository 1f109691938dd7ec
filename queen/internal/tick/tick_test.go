package tick

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// Every calls fn once an interval, the first one interval in, and returns
// when ctx ends.
func TestEveryCallsOnceAnIntervalUntilTheContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		start := time.Now()
		var at []time.Duration
		done := make(chan struct{})
		go func() {
			Every(ctx, time.Second, func() { at = append(at, time.Since(start)) })
			close(done)
		}()
		time.Sleep(3500 * time.Millisecond)
		cancel()
		<-done
		if len(at) != 3 || at[0] != time.Second || at[1] != 2*time.Second || at[2] != 3*time.Second {
			t.Fatalf("calls at %v, want 1s 2s 3s", at)
		}
	})
}

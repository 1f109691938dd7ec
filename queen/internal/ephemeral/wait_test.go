package ephemeral

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"
)

// The long-poll tests run in a synctest bubble: its clock moves only when
// every goroutine of the bubble is blocked, so a wait of seconds takes no
// time and synctest.Wait says when a pop is parked.

// bubbleStore is a store on the bubble's clock.
func bubbleStore(t *testing.T) *Store {
	t.Helper()
	s, err := New(Options{Incarnation: 0xe1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitingPop starts a pop that waits; its answer arrives on the channel.
func waitingPop(s *Store, ctx context.Context, req PopRequest) <-chan []Message {
	out := make(chan []Message, 1)
	go func() { out <- s.Pop(ctx, req) }()
	return out
}

// parked fails unless the pop is still waiting once the bubble is idle.
func parked(t *testing.T, got <-chan []Message) {
	t.Helper()
	synctest.Wait()
	select {
	case m := <-got:
		t.Fatalf("the pop answered %s, want it waiting", payloads(m))
	default:
	}
}

// TestPopWaitsForPush: a waiting pop parks until a push, then answers it.
func TestPopWaitsForPush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := bubbleStore(t)
		start := time.Now()
		got := waitingPop(s, context.Background(), PopRequest{Tenant: tenant, Queue: "q", Batch: 5, Wait: 10 * time.Second})
		parked(t, got)
		time.Sleep(3 * time.Second)
		parked(t, got)
		push(t, s, "q", "", `1`)
		if m := <-got; payloads(m) != "1@1" || time.Since(start) != 3*time.Second {
			t.Fatalf("answered %s after %v", payloads(m), time.Since(start))
		}
	})
}

// TestPopWaitEnds: a waiting pop with nothing answers none when its wait
// is over, or when its context ends.
func TestPopWaitEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := bubbleStore(t)
		start := time.Now()
		got := waitingPop(s, context.Background(), PopRequest{Tenant: tenant, Queue: "q", Batch: 1, Wait: 10 * time.Second})
		if m := <-got; len(m) != 0 || time.Since(start) != 10*time.Second {
			t.Fatalf("answered %s after %v", payloads(m), time.Since(start))
		}
		ctx, cancel := context.WithCancel(context.Background())
		got = waitingPop(s, ctx, PopRequest{Tenant: tenant, Queue: "q", Batch: 1, Wait: time.Minute})
		parked(t, got)
		cancel()
		if m := <-got; m != nil {
			t.Fatalf("a cancelled pop answered %s", payloads(m))
		}
		push(t, s, "q", "", `1`)
		if m := pop(s, "q", "", 1); payloads(m) != "1@1" {
			t.Fatalf("the cancelled pop took %s", payloads(m))
		}
	})
}

// TestPopWakesAtLeaseEnd: a waiting pop is answered when another
// consumer's lease ends, with no push to wake it.
func TestPopWakesAtLeaseEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := bubbleStore(t)
		if _, err := s.Configure(tenant, "q", Patch{Lease: ptr(5 * time.Second)}); err != nil {
			t.Fatal(err)
		}
		push(t, s, "q", "", `1`)
		pop(s, "q", "", 1)
		start := time.Now()
		got := waitingPop(s, context.Background(), PopRequest{Tenant: tenant, Queue: "q", Batch: 1, Wait: time.Minute})
		if m := <-got; payloads(m) != "1@2" || time.Since(start) != 5*time.Second {
			t.Fatalf("answered %s after %v", payloads(m), time.Since(start))
		}
	})
}

// TestWindowBuffer: with a window, a waiting pop that sees fewer messages
// than it waits for holds on up to the window's length for more; without
// waiting, or once the count is there, it takes at once.
func TestWindowBuffer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := bubbleStore(t)
		if _, err := s.Configure(tenant, "q", Patch{WindowBuffer: &WindowBuffer{Wait: 100 * time.Millisecond, Count: 3}}); err != nil {
			t.Fatal(err)
		}
		req := PopRequest{Tenant: tenant, Queue: "q", Batch: 10, Wait: 10 * time.Second, AutoAck: true}
		got := waitingPop(s, context.Background(), req)
		push(t, s, "q", "", `1`)
		parked(t, got)
		push(t, s, "q", "", `2`, `3`)
		if m := <-got; payloads(m) != "1@1 2@1 3@1" {
			t.Fatalf("a full window answered %s", payloads(m))
		}

		push(t, s, "q", "", `4`)
		start := time.Now()
		got = waitingPop(s, context.Background(), req)
		parked(t, got)
		if m := <-got; payloads(m) != "4@1" || time.Since(start) != 100*time.Millisecond {
			t.Fatalf("the window's end answered %s after %v", payloads(m), time.Since(start))
		}

		push(t, s, "q", "", `5`)
		if m := s.Pop(context.Background(), PopRequest{Tenant: tenant, Queue: "q", Batch: 10}); payloads(m) != "5@1" {
			t.Fatalf("a pop that does not wait: %s", payloads(m))
		}
	})
}

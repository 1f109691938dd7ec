package queuelog_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// waited is how a WaitRecords call ended: its error, or the partition's
// high watermark on the node right when it returned.
type waited struct {
	high int64
	err  error
}

// startWait runs WaitRecords in a goroutine.
func startWait(ctx context.Context, s *raftlog.Shard, ten, queue, partition string, offset int64) <-chan waited {
	ch := make(chan waited, 1)
	go func() {
		if err := queuelog.WaitRecords(ctx, s, ten, queue, partition, offset); err != nil {
			ch <- waited{err: err}
			return
		}
		got, err := s.LocalRead(func(v *raftlog.View) (any, error) {
			b, err := queuelog.ReadRecords(v, ten, queue, partition, offset, queuelog.ReadLimits{MaxRecords: 1})
			return b.HighWatermark, err
		})
		if err != nil {
			ch <- waited{err: err}
			return
		}
		ch <- waited{high: got.(int64)}
	}()
	return ch
}

// notYet fails the test if the wait has returned.
func notYet(t testing.TB, ch <-chan waited, what string) {
	t.Helper()
	select {
	case w := <-ch:
		t.Fatalf("%s: the wait returned already: %+v", what, w)
	default:
	}
}

// returned waits for the wait's end and fails the test unless it saw the
// high watermark pass offset.
func returned(t testing.TB, ch <-chan waited, offset int64) {
	t.Helper()
	select {
	case w := <-ch:
		if w.err != nil || w.high <= offset {
			t.Fatalf("wait for offset %d returned %+v", offset, w)
		}
	case <-time.After(testTimeout):
		t.Fatalf("wait for offset %d did not return after the record was applied", offset)
	}
}

// TestWaitRecords: a wait returns once the awaited offset is applied and not
// before, also for a partition (or queue) that did not exist when it began,
// and returns the context's error when the context ends.
func TestWaitRecords(t *testing.T) {
	c, s := started(t, 1)
	ctx := raftlogtest.Ctx(t, testTimeout)
	push(t, s, item("q", "p", "0", nil))
	waitRecords(t, s, tenant, "q", "p", 0) // applied already: at once

	w := startWait(ctx, s, tenant, "q", "p", 1)
	// Records elsewhere, even of the same names in another tenant, do not end it.
	push(t, s, item("q", "other", "x", nil), item("q2", "p", "y", nil))
	if _, _, err := queuelog.Push(ctx, s, queuelog.PushOp{Tenant: "00000000-0000-0000-0000-000000000002", Items: []queuelog.PushItem{item("q", "p", "z", nil), item("q", "p", "zz", nil)}}); err != nil {
		t.Fatal(err)
	}
	notYet(t, w, "after pushes to other partitions")
	push(t, s, item("q", "p", "1", nil))
	returned(t, w, 1)

	// A partition created after the wait began, awaited at offset 0 and 2.
	w0 := startWait(ctx, s, tenant, "new", "p", 0)
	w2 := startWait(ctx, s, tenant, "new", "p", 2)
	push(t, s, item("new", "p", "a", nil))
	returned(t, w0, 0)
	notYet(t, w2, "after offset 0 of a new partition")
	push(t, s, item("new", "p", "b", nil))
	notYet(t, w2, "after offset 1 of a new partition")
	push(t, s, item("new", "p", "c", nil), item("new", "p", "d", nil))
	returned(t, w2, 2)

	// The context ends the wait: cancelled, or past its deadline.
	cctx, cancel := context.WithCancel(ctx)
	wc := startWait(cctx, s, tenant, "q", "p", 100)
	notYet(t, wc, "before the cancel")
	cancel()
	if got := <-wc; !errors.Is(got.err, context.Canceled) {
		t.Fatalf("cancelled wait: %+v, want context.Canceled", got)
	}
	dctx, dcancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer dcancel()
	if err := queuelog.WaitRecords(dctx, s, tenant, "never", "p", 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("wait past its deadline: %v, want context.DeadlineExceeded", err)
	}

	// A stopped node answers ErrClosed rather than waiting.
	c.Stop(1)
	if err := queuelog.WaitRecords(ctx, s, tenant, "q", "p", 100); !errors.Is(err, raftlog.ErrClosed) {
		t.Fatalf("wait on a stopped node: %v, want ErrClosed", err)
	}
}

package queuelog_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// trim trims and fails the test on error.
func trim(t testing.TB, s *raftlog.Shard, queue, partition string, before int64) uint64 {
	t.Helper()
	n, err := queuelog.Trim(raftlogtest.Ctx(t, testTimeout), s, queuelog.TrimOp{Tenant: tenant, Queue: queue, Partition: partition, Before: before})
	if err != nil {
		t.Fatalf("trim %s/%s before %d: %v", queue, partition, before, err)
	}
	return n
}

// checkRange fails the test unless every running node holds exactly
// offsets start..high-1 of the partition, and refuses reads below start.
func checkRange(t testing.TB, c *raftlogtest.Cluster, queue, partition string, start, high int64) {
	t.Helper()
	for id, s := range c.Shards {
		b := readAll(t, s, queue, partition)
		if b.LogStart != start || b.HighWatermark != high || int64(len(b.Records)) != high-start || (len(b.Records) > 0 && b.Records[0].Offset != start) {
			t.Fatalf("node %d %s/%s: log start %d, high %d, %d records; want %d..%d", id, queue, partition, b.LogStart, b.HighWatermark, len(b.Records), start, high)
		}
		if start > 0 {
			_, err := readErr(t, s, func(v *raftlog.View) (queuelog.Batch, error) {
				return queuelog.ReadRecords(v, tenant, queue, partition, start-1, queuelog.ReadLimits{})
			})
			if !errors.Is(err, queuelog.ErrOffsetOutOfRange) {
				t.Fatalf("node %d %s/%s: read below the log start: %v", id, queue, partition, err)
			}
		}
	}
}

// TestTrim: retention deletes the records stamped before the cutoff on
// every node, of one partition or of all, moves the log start, and forgets
// the dedup entries of what it deleted.
func TestTrim(t *testing.T) {
	c, s := started(t, 3)
	_, base := push(t, s, item("other", "p", "first", nil))
	at := func(i int64) int64 { return base + 1000*(i+1) }
	for i := range int64(6) { // offsets 0..5 of each partition, stamped at(i)
		pushAt(t, s, at(i), item("q", "p1", fmt.Sprint("a", i), nil), item("q", "p2", fmt.Sprint("b", i), nil), item("q2", "p1", fmt.Sprint("c", i), nil))
	}

	if n := trim(t, s, "q", "p1", at(3)); n != 3 {
		t.Fatalf("trim of q/p1 before offset 3 deleted %d", n)
	}
	barrier(t, c)
	checkRange(t, c, "q", "p1", 3, 6)
	checkRange(t, c, "q", "p2", 0, 6)
	checkRange(t, c, "q2", "p1", 0, 6)

	// The trimmed record's transaction id is forgotten; the others' are not.
	ans, _ := push(t, s, item("q", "p1", "a0", nil), item("q", "p1", "a4", nil), item("q", "p2", "b0", nil))
	checkAnswer(t, "a0 after its record was trimmed", ans[0], false, 6, mid("a0"))
	checkAnswer(t, "a4, kept", ans[1], true, 4, mid("a4"))
	checkAnswer(t, "b0 of the other partition", ans[2], true, 0, mid("b0"))

	// Every partition of q: p1 loses 3 and 4, p2 0 to 4; q2 is not q.
	if n := trim(t, s, "q", "", at(5)); n != 7 {
		t.Fatalf("trim of q before offset 5 deleted %d, want 2+5", n)
	}
	if n := trim(t, s, "q", "", at(5)); n != 0 {
		t.Fatalf("the same trim again deleted %d", n)
	}
	if n := trim(t, s, "nope", "", 1<<62) + trim(t, s, "q", "nope", 1<<62); n != 0 {
		t.Fatalf("trims of unknown names deleted %d", n)
	}
	// All of q2: the log start reaches the high watermark, and offsets go on.
	if n := trim(t, s, "q2", "", 1<<62); n != 6 {
		t.Fatalf("trim of all of q2 deleted %d", n)
	}
	barrier(t, c)
	checkRange(t, c, "q", "p1", 5, 7)
	checkRange(t, c, "q", "p2", 5, 6)
	checkRange(t, c, "q2", "p1", 6, 6)
	for id, s := range c.Shards {
		a := read(t, s, func(v *raftlog.View) (queuelog.OffsetAt, error) {
			return queuelog.OffsetForTime(v, tenant, "q2", "p1", 0)
		})
		if a.Found || a.LogStart != 6 || a.HighWatermark != 6 {
			t.Fatalf("node %d: offset for time in an emptied partition: %+v", id, a)
		}
		parts, _ := partitionsChanged(t, s, "q2", minStamp, 0, 10)
		if len(parts) != 1 || parts[0].LastOffset != 5 || parts[0].LogStart != 6 {
			t.Fatalf("node %d: emptied partition %+v", id, parts)
		}
	}
	ans, _ = push(t, s, item("q2", "p1", "c0", nil))
	checkAnswer(t, "c0 in an emptied partition", ans[0], false, 6, mid("c0"))
	barrier(t, c)
	want := dump(t, s)
	for id, o := range c.Shards {
		sameDump(t, fmt.Sprintf("node %d", id), dump(t, o), want)
	}
}

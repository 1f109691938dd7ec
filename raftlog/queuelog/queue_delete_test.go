package queuelog_test

import (
	"errors"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// TestDeleteQueue: a deleted queue is gone with its partitions, records and
// dedup entries, other queues keep theirs, and a push after it creates the
// queue anew from offset 0, its transaction ids no longer duplicates.
func TestDeleteQueue(t *testing.T) {
	_, s := started(t, 1)
	configure(t, s, "q", `{"retryLimit":7}`, false)
	first, _ := push(t, s, item("q", "a", "a0", []byte("A0")), item("q", "a", "a1", []byte("A1")), item("q", "b", "b0", []byte("B0")))
	push(t, s, item("other", "a", "a0", []byte("O")))
	ctx := raftlogtest.Ctx(t, testTimeout)
	pi, err := s.LocalRead(func(v *raftlog.View) (any, error) { return queuelog.Partition(v, tenant, "q", "a") })
	if err != nil {
		t.Fatal(err)
	}
	uid := pi.(queuelog.PartitionInfo).UID
	got, err := queuelog.DeleteQueue(ctx, s, queuelog.DeleteQueueOp{Tenant: tenant, Queue: "q"})
	if err != nil || got != (queuelog.DeleteQueueAnswer{Found: true, Partitions: 2, Records: 3}) {
		t.Fatalf("delete: %+v %v", got, err)
	}
	read, err := s.LocalRead(func(v *raftlog.View) (any, error) {
		if _, ok, err := queuelog.Queue(v, tenant, "q"); err != nil || ok {
			t.Errorf("the deleted queue is still there: %v %v", ok, err)
		}
		if _, err := queuelog.ReadRecords(v, tenant, "q", "a", 0, queuelog.ReadLimits{}); !errors.Is(err, queuelog.ErrUnknownPartition) {
			t.Errorf("records of a deleted partition: %v", err)
		}
		if _, ok, _ := queuelog.TransactionOffset(v, uid, "a0"); ok {
			t.Error("a dedup entry of the deleted queue is left")
		}
		return queuelog.ReadRecords(v, tenant, "other", "a", 0, queuelog.ReadLimits{})
	})
	if err != nil || len(read.(queuelog.Batch).Records) != 1 {
		t.Fatalf("another queue after the delete: %+v %v", read, err)
	}
	again, _ := push(t, s, item("q", "a", "a0", []byte("again")))
	if again[0].Duplicate || again[0].Offset != 0 || again[0].PartitionID == first[0].PartitionID {
		t.Fatalf("a push after the delete: %+v (first %+v)", again[0], first[0])
	}
	if got, err := queuelog.DeleteQueue(ctx, s, queuelog.DeleteQueueOp{Tenant: tenant, Queue: "never"}); err != nil || got.Found {
		t.Fatalf("delete of an unknown queue: %+v %v", got, err)
	}
}

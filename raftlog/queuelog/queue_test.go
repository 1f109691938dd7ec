package queuelog_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

func msgID(i int) (id [16]byte) {
	copy(id[:], fmt.Sprintf("msg-%012d", i))
	return id
}

func TestPushAndRead(t *testing.T) {
	_, s := started(t, 1)
	ctx := raftlogtest.Ctx(t, 30*time.Second)
	items := []queuelog.PushItem{
		{Queue: "orders", Partition: "cust-1", TransactionID: "a", MessageID: msgID(1), Dedup: true, Payload: []byte(`{"total":42.00}`)},
		{Queue: "orders", Partition: "cust-2", TransactionID: "b", MessageID: msgID(2), Dedup: true, Payload: []byte(`{"n":2}`)},
		{Queue: "orders", Partition: "cust-1", TransactionID: "c", MessageID: msgID(3), Dedup: true, Payload: []byte(`{"n":3}`)},
		{Queue: "orders", Partition: "cust-1", TransactionID: "a", MessageID: msgID(4), Dedup: true, Payload: []byte(`{"again":1}`)},
	}
	answers, stamp, err := queuelog.Push(ctx, s, queuelog.PushOp{Tenant: "00000000-0000-0000-0000-000000000001", Items: items})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		off int64
		dup bool
	}{{0, false}, {0, false}, {1, false}, {0, true}}
	for i, a := range answers {
		if a.Offset != want[i].off || a.Duplicate != want[i].dup {
			t.Errorf("item %d: offset %d duplicate %v, want %d %v", i, a.Offset, a.Duplicate, want[i].off, want[i].dup)
		}
	}
	if answers[3].MessageID != msgID(1) {
		t.Errorf("the duplicate answers message id %q, want the original's", answers[3].MessageID)
	}
	got, err := s.LocalRead(func(v *raftlog.View) (any, error) {
		return queuelog.ReadRecords(v, "00000000-0000-0000-0000-000000000001", "orders", "cust-1", 0, queuelog.ReadLimits{})
	})
	if err != nil {
		t.Fatal(err)
	}
	b := got.(queuelog.Batch)
	if len(b.Records) != 2 || b.HighWatermark != 2 || b.LogStart != 0 {
		t.Fatalf("batch %+v", b)
	}
	if string(b.Records[0].Payload) != `{"total":42.00}` || b.Records[0].Ts != stamp || b.Records[1].TransactionID != "c" {
		t.Errorf("records %+v (stamp %d)", b.Records, stamp)
	}
	if s.SafeTime() < stamp {
		t.Errorf("safeTime %d below the push's stamp %d", s.SafeTime(), stamp)
	}
}

package timers_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/queen/internal/timers"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// TestFireBytes: a fire entry pushes at most FireBytes of payload (and
// says more), so ten timers of 1 MiB take two fires.
func TestFireBytes(t *testing.T) {
	cl := raftlogtest.New(t, 1, appliers())
	cl.StartAll()
	_, shard := cl.Leader()
	ctx := raftlogtest.Ctx(t, 30*time.Second)
	payload := []byte(`"` + strings.Repeat("x", timers.MaxPayloadBytes-2) + `"`)
	c := timers.Call{Tenant: tenant}
	for i := range 10 {
		c.Ops = append(c.Ops, timers.Op{Kind: timers.KindSchedule, Queue: "big", Partition: "Default", Key: fmt.Sprint(i),
			Txn: fmt.Sprint("t", i), Payload: payload})
	}
	if _, err := (&timers.Timers{Shard: shard}).Do(ctx, c); err != nil {
		t.Fatal(err)
	}
	fired := []int{}
	for range 3 {
		b, _, err := shard.ProposeOp(ctx, timers.FireOp{Limit: timers.FireLimit}.Op())
		if err != nil {
			t.Fatal(err)
		}
		a, err := timers.DecodeFire(b)
		if err != nil {
			t.Fatal(err)
		}
		fired = append(fired, a.Fired)
		if want := a.Fired < 10 && len(fired) == 1; a.More != want {
			t.Fatalf("fire %d: %+v", len(fired), a)
		}
	}
	if want := timers.FireBytes / timers.MaxPayloadBytes; fired[0] != want || fired[0]+fired[1] != 10 || fired[2] != 0 {
		t.Fatalf("fires fired %v, want %d first and 10 in all", fired, want)
	}
	v, err := shard.LocalRead(func(v *raftlog.View) (any, error) { return queuelog.Partition(v, tenant, "big", "Default") })
	if err != nil || v.(queuelog.PartitionInfo).LastOffset != 9 {
		t.Fatalf("partition %+v %v", v, err)
	}
}

// TestFireNewPartitions: partitions one fire entry creates have ids of
// their own (each push it applies gets a nested number of its own).
func TestFireNewPartitions(t *testing.T) {
	cl := raftlogtest.New(t, 1, appliers())
	cl.StartAll()
	_, shard := cl.Leader()
	ctx := raftlogtest.Ctx(t, 30*time.Second)
	c := timers.Call{Tenant: tenant, Ops: []timers.Op{
		{Kind: timers.KindSchedule, Queue: "qa", Partition: "pa", Key: "a", Txn: "ta", Payload: []byte(`1`)},
		{Kind: timers.KindSchedule, Queue: "qb", Partition: "pb", Key: "b", Txn: "tb", Payload: []byte(`2`)}}}
	if _, err := (&timers.Timers{Shard: shard}).Do(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, _, err := shard.ProposeOp(ctx, timers.FireOp{Limit: timers.FireLimit}.Op()); err != nil {
		t.Fatal(err)
	}
	v, err := shard.LocalRead(func(v *raftlog.View) (any, error) {
		a, err := queuelog.Partition(v, tenant, "qa", "pa")
		if err != nil {
			return nil, err
		}
		b, err := queuelog.Partition(v, tenant, "qb", "pb")
		return [2]queuelog.PartitionInfo{a, b}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if p := v.([2]queuelog.PartitionInfo); p[0].ID == p[1].ID || p[0].UID == p[1].UID {
		t.Fatalf("two partitions of one fire share an id: %x %x", p[0].ID, p[1].ID)
	}
}

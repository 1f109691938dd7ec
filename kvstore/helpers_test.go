package kvstore_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

const tenant = "00000000-0000-0000-0000-000000000001"

// startOne starts a one-node cluster and returns it with the node's Store.
func startOne(t *testing.T) (*raftlogtest.Cluster, *raftlog.Shard, *kvstore.Store) {
	t.Helper()
	c := raftlogtest.New(t, 1, kvstore.Appliers())
	c.StartAll()
	_, s := c.Leader()
	return c, s, kvstore.New(s)
}

func ctx(t *testing.T) context.Context { return raftlogtest.Ctx(t, 20*time.Second) }

// do runs ops and fails the test on an error.
func do(t *testing.T, kv *kvstore.Store, ops ...kvstore.Op) *kvstore.Answer {
	t.Helper()
	a, err := kv.Do(ctx(t), tenant, ops)
	if err != nil {
		t.Fatalf("Do(%+v): %v", ops, err)
	}
	return a
}

// one runs one op and returns its result; the call must be OK.
func one(t *testing.T, kv *kvstore.Store, op kvstore.Op) kvstore.Result {
	t.Helper()
	a := do(t, kv, op)
	if !a.OK || len(a.Results) != 1 {
		t.Fatalf("Do(%+v) answered %+v", op, a)
	}
	return a.Results[0]
}

func i64(n int64) *int64 { return &n }

func put(key, value string) kvstore.Op {
	return kvstore.Op{Op: kvstore.OpPut, NS: "app", Key: key, Value: json.RawMessage(value), Forever: true}
}

func get(key string) kvstore.Op { return kvstore.Op{Op: kvstore.OpGet, NS: "app", Key: key} }

// tick moves the broker clock to at least us by committing an empty entry
// stamped with it, and returns the entry's stamp.
func tick(t *testing.T, s *raftlog.Shard, us int64) int64 {
	t.Helper()
	res, err := s.Propose(ctx(t), raftlog.Command{Clock: us})
	if err != nil {
		t.Fatal(err)
	}
	return res.Stamp
}

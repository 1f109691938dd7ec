package queuelog_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// TestApplyChecksNames: the state machine refuses, where it applies, an
// op whose names the contract refuses, whoever proposed it: a follower
// trusts nothing its proposer checked. Nothing of a refused entry is
// stored.
func TestApplyChecksNames(t *testing.T) {
	_, s := started(t, 1)
	ctx := raftlogtest.Ctx(t, testTimeout)
	refused := []queuelog.PushOp{
		{Tenant: "t1", Items: []queuelog.PushItem{item("q", "p", "a", nil)}},
		{Tenant: tenant, Items: []queuelog.PushItem{item(strings.Repeat("q", 257), "p", "a", nil)}},
		{Tenant: tenant, Items: []queuelog.PushItem{item("q", strings.Repeat("p", 1025), "a", nil)}},
		{Tenant: tenant, Items: []queuelog.PushItem{item("q", "p", "ok", nil), item("a/b", "p", "b", nil)}},
		{Tenant: tenant, Items: []queuelog.PushItem{item("q", "..", "a", nil)}},
		{Tenant: tenant, Items: []queuelog.PushItem{item("q", "p", "x\xff", nil)}},
		{Tenant: tenant, Items: []queuelog.PushItem{item("", "p", "a", nil)}},
	}
	for i, op := range refused {
		if _, _, err := queuelog.Push(ctx, s, op); !errors.Is(err, raftlog.ErrRejected) {
			t.Errorf("push %d: %v, want ErrRejected", i, err)
		}
	}
	for i, op := range []queuelog.ConfigureOp{
		{Tenant: tenant, Queue: "a\nb", Options: []byte(`{}`)},
		{Tenant: tenant, Queue: "q", Options: []byte(`{"dedupWindowSeconds":9223372036854775807}`)},
		{Tenant: tenant, Queue: "q", Options: []byte(`{"leaseTime":-1}`)},
	} {
		if _, err := queuelog.Configure(ctx, s, op); !errors.Is(err, raftlog.ErrRejected) {
			t.Errorf("configure %d: %v, want ErrRejected", i, err)
		}
	}
	if d := dump(t, s); d != "" {
		t.Fatalf("refused entries stored:\n%s", d)
	}
}

// TestMaxSizeAtApply: a queue's maxSize is judged where the entry applies:
// items past it answer Full and are not stored; a transaction's strict
// items are not bounded by it.
func TestMaxSizeAtApply(t *testing.T) {
	_, s := started(t, 1)
	configure(t, s, "small", `{"maxSize":3}`, false)
	ans, _ := push(t, s, item("small", "p", "a", nil), item("small", "q", "b", nil), item("small", "p", "c", nil),
		item("small", "p", "d", nil), item("other", "p", "e", nil))
	for i, want := range []bool{false, false, false, true, false} {
		if ans[i].Full != want {
			t.Errorf("item %d: Full %v, want %v", i, ans[i].Full, want)
		}
	}
	strict := item("small", "p", "s", nil)
	strict.Strict = true
	ans, _ = push(t, s, item("small", "p", "x", nil), strict)
	if !ans[0].Full || ans[1].Full || ans[1].Offset != 2 {
		t.Errorf("a full queue: %+v", ans)
	}
}

package raftlog_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// TestNoLeader: with one node of three up no leader can be elected; a
// proposal or a linearizable read ends with ErrNoLeader at its deadline.
func TestNoLeader(t *testing.T) {
	c := raftlogtest.New(t, 3, nil)
	s := c.Start(1)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, _, err := queuelog.Push(ctx, s, queuelog.PushOp{Tenant: raftlogtest.Tenant, Items: []queuelog.PushItem{raftlogtest.Item("q", "p", "x", nil)}}); !errors.Is(err, raftlog.ErrNoLeader) {
		t.Fatalf("push without a leader: %v, want ErrNoLeader", err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	if _, err := s.Read(ctx2, func(*raftlog.View) (any, error) { return nil, nil }); !errors.Is(err, raftlog.ErrNoLeader) {
		t.Fatalf("read without a leader: %v, want ErrNoLeader", err)
	}
}

// TestClosed: a stopped node's shard answers ErrClosed.
func TestClosed(t *testing.T) {
	c, s := raftlogtest.Started(t, 1)
	raftlogtest.Push(t, s, raftlogtest.Item("q", "p", "x", nil))
	c.Stop(1)
	ctx := raftlogtest.Ctx(t, raftlogtest.Timeout)
	if _, _, err := queuelog.Push(ctx, s, queuelog.PushOp{Tenant: raftlogtest.Tenant, Items: []queuelog.PushItem{raftlogtest.Item("q", "p", "y", nil)}}); !errors.Is(err, raftlog.ErrClosed) {
		t.Fatalf("push on a stopped node: %v, want ErrClosed", err)
	}
	if _, err := s.Read(ctx, func(*raftlog.View) (any, error) { return nil, nil }); !errors.Is(err, raftlog.ErrClosed) {
		t.Fatalf("read on a stopped node: %v, want ErrClosed", err)
	}
	if _, err := s.LocalRead(func(*raftlog.View) (any, error) { return nil, nil }); !errors.Is(err, raftlog.ErrClosed) {
		t.Fatalf("local read on a stopped node: %v, want ErrClosed", err)
	}
}

// TestTicks: an idle leader proposes empty entries, so safeTime moves.
func TestTicks(t *testing.T) {
	c := raftlogtest.New(t, 1, nil)
	c.Tweak = func(cfg *raftlog.Config) { cfg.TickInterval = 20 * time.Millisecond }
	c.StartAll()
	_, s := c.Leader()
	_, stamp := raftlogtest.Push(t, s, raftlogtest.Item("q", "p", "x", nil))
	// Polled, bounded by a deadline: safeTime moving has no event to wait on.
	for deadline := time.Now().Add(raftlogtest.Timeout); s.SafeTime() <= stamp; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("safeTime stayed at %d on an idle cluster with ticks", s.SafeTime())
		}
	}
}

// TestConfigValidate names the field that cannot work.
func TestConfigValidate(t *testing.T) {
	ok := raftlog.Config{NodeID: 1, RaftAddress: "127.0.0.1:1", DataDir: "/x", Members: map[uint64]string{1: "127.0.0.1:1"}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		change func(*raftlog.Config)
		names  string
	}{
		{func(c *raftlog.Config) { c.NodeID = 0 }, "NodeID"},
		{func(c *raftlog.Config) { c.RaftAddress = "" }, "RaftAddress"},
		{func(c *raftlog.Config) { c.DataDir = "" }, "DataDir"},
		{func(c *raftlog.Config) { c.Join = true }, "Members"},
		{func(c *raftlog.Config) { c.Members = map[uint64]string{2: "127.0.0.1:2"} }, "Members"},
		{func(c *raftlog.Config) { c.ElectionRTT, c.HeartbeatRTT = 4, 2 }, "ElectionRTT"},
		{func(c *raftlog.Config) { c.LogDB = "huge" }, "LogDB"},
		{func(c *raftlog.Config) { c.LogDB = "Tiny" }, "LogDB"}, // the broker's config folds case, not raftlog
	} {
		c := ok
		tc.change(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.names) {
			t.Errorf("%+v: %v, want an error naming %s", c, err, tc.names)
		}
		if _, err := raftlog.NewHost(c); err == nil {
			t.Errorf("NewHost took %+v", c)
		}
	}
}

// Package raftlogtest starts in-process raftlog clusters for tests: n nodes
// of one shard, each a Host of its own on a free 127.0.0.1 port, in a
// temporary directory, stopped when the test ends.
package raftlogtest

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/testkit/freeport"
)

// ShardID is the shard every test cluster runs.
const ShardID = 1

// Logger writes warnings and errors to the test's log.
func Logger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// Cluster is n nodes of one shard in this process.
type Cluster struct {
	T        testing.TB
	Dir      string
	Members  map[uint64]string
	Hosts    map[uint64]*raftlog.Host
	Shards   map[uint64]*raftlog.Shard
	Appliers map[raftlog.OpKind]raftlog.Applier
	// Tweak, when set, adjusts each node's config before it starts.
	Tweak func(*raftlog.Config)
}

// New makes a cluster of n nodes, none started. appliers are added to the
// queue log's on every node.
func New(t testing.TB, n int, appliers map[raftlog.OpKind]raftlog.Applier) *Cluster {
	c := &Cluster{T: t, Dir: t.TempDir(), Members: map[uint64]string{}, Hosts: map[uint64]*raftlog.Host{},
		Shards: map[uint64]*raftlog.Shard{}, Appliers: appliers}
	for id := uint64(1); id <= uint64(n); id++ {
		c.Members[id] = fmt.Sprintf("127.0.0.1:%d", freeport.Take(t))
	}
	t.Cleanup(c.StopAll)
	return c
}

// Config returns node id's config: RTT 10 ms, no ticks, the test's logger.
func (c *Cluster) Config(id uint64) raftlog.Config {
	cfg := raftlog.Config{NodeID: id, RaftAddress: c.Members[id], DataDir: filepath.Join(c.Dir, fmt.Sprint(id)),
		Members: c.Members, RTT: 10 * time.Millisecond, Logger: Logger(c.T), TickInterval: -1}
	if c.Tweak != nil {
		c.Tweak(&cfg)
	}
	return cfg
}

// Start starts node id, or starts it again after Stop, with its data.
func (c *Cluster) Start(id uint64) *raftlog.Shard {
	c.T.Helper()
	c.startHost(id)
	return c.startShard(id)
}

func (c *Cluster) startHost(id uint64) {
	c.T.Helper()
	h, err := raftlog.NewHost(c.Config(id))
	if err != nil {
		c.T.Fatal(err)
	}
	c.Hosts[id] = h
}

func (c *Cluster) startShard(id uint64) *raftlog.Shard {
	c.T.Helper()
	appliers, err := withQueueLog(c.Appliers)
	if err != nil {
		c.T.Fatal(err)
	}
	s, err := c.Hosts[id].StartShard(ShardID, appliers)
	if err != nil {
		c.Hosts[id].Close()
		delete(c.Hosts, id)
		c.T.Fatal(err)
	}
	c.Shards[id] = s
	return s
}

// StartAll starts every node not running. Every host listens before any
// shard starts: a raft message to a peer not listening yet is dropped, and
// dragonboat's transport then drops what follows to it for up to a second,
// a proposal forwarded by a follower included (it ends in ErrTimeout).
func (c *Cluster) StartAll() {
	var ids []uint64
	for _, id := range slices.Sorted(maps.Keys(c.Members)) {
		if c.Hosts[id] == nil {
			c.startHost(id)
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		c.startShard(id)
	}
}

// Stop stops node id; its data stays for Start.
func (c *Cluster) Stop(id uint64) {
	if h, ok := c.Hosts[id]; ok {
		h.Close()
		delete(c.Hosts, id)
		delete(c.Shards, id)
	}
}

// StopAll stops every running node.
func (c *Cluster) StopAll() {
	for id := range c.Hosts {
		c.Stop(id)
	}
}

// Leader waits up to 20 s for a running node to lead and returns its id
// and shard.
func (c *Cluster) Leader() (uint64, *raftlog.Shard) {
	c.T.Helper()
	timeout := time.After(20 * time.Second)
	for {
		changed := make([]<-chan struct{}, 0, len(c.Shards))
		for _, s := range c.Shards {
			changed = append(changed, s.LeaderChanged())
		}
		for id, s := range c.Shards {
			if s.Leader() == id {
				return id, s
			}
		}
		wake, done := make(chan struct{}, 1), make(chan struct{})
		for _, ch := range changed {
			go func() {
				select {
				case <-ch:
					select {
					case wake <- struct{}{}:
					default:
					}
				case <-done:
				}
			}()
		}
		select {
		case <-wake:
			close(done)
		case <-timeout:
			close(done)
			c.T.Fatal("no leader elected within 20 s")
		}
	}
}

// Ctx returns a context that ends after d or with the test.
func Ctx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

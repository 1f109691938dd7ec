package raftlogtest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/testkit/freeport"
)

// Local is n nodes of one shard in this process, for benchmarks and tools
// that have no testing.TB: the same setup as Cluster, in a temporary
// directory that Close removes.
type Local struct {
	Shards map[uint64]*raftlog.Shard
	hosts  []*raftlog.Host
	dir    string
}

// StartLocal starts n nodes on free 127.0.0.1 ports with the given raft
// round trip time, each running the queue log and appliers; logs go to
// logger. Each tweak changes every node's Config before its host starts.
func StartLocal(n int, appliers map[raftlog.OpKind]raftlog.Applier, rtt time.Duration, logger *slog.Logger, tweaks ...func(*raftlog.Config)) (*Local, error) {
	dir, err := os.MkdirTemp("", "raftlog-local")
	if err != nil {
		return nil, err
	}
	l := &Local{Shards: map[uint64]*raftlog.Shard{}, dir: dir}
	members := map[uint64]string{}
	for id := uint64(1); id <= uint64(n); id++ {
		port, err := freeport.Port()
		if err != nil {
			l.Close()
			return nil, err
		}
		members[id] = "127.0.0.1:" + strconv.Itoa(port)
	}
	// Every host listens before any shard starts (see StartAll).
	for id := uint64(1); id <= uint64(n); id++ {
		cfg := raftlog.Config{NodeID: id, RaftAddress: members[id], Members: members,
			DataDir: filepath.Join(dir, strconv.FormatUint(id, 10)), RTT: rtt, Logger: logger, TickInterval: -1}
		for _, tweak := range tweaks {
			tweak(&cfg)
		}
		h, err := raftlog.NewHost(cfg)
		if err != nil {
			l.Close()
			return nil, err
		}
		l.hosts = append(l.hosts, h)
	}
	all, err := withQueueLog(appliers)
	if err != nil {
		l.Close()
		return nil, err
	}
	for i, h := range l.hosts {
		s, err := h.StartShard(ShardID, all)
		if err != nil {
			l.Close()
			return nil, err
		}
		l.Shards[uint64(i+1)] = s
	}
	return l, nil
}

// Leader waits for a leader and returns its shard.
func (l *Local) Leader(ctx context.Context) (*raftlog.Shard, error) {
	for {
		changed := l.Shards[1].LeaderChanged()
		if id := l.Shards[1].Leader(); id != 0 {
			return l.Shards[id], nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("raftlogtest: no leader: %w", ctx.Err())
		case <-changed:
		}
	}
}

// Close stops every node and removes their data.
func (l *Local) Close() {
	for _, h := range l.hosts {
		h.Close()
	}
	os.RemoveAll(l.dir)
}

package raftlog

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lni/dragonboat/v4"
	"github.com/lni/dragonboat/v4/config"
	"github.com/lni/dragonboat/v4/raftio"
	sm "github.com/lni/dragonboat/v4/statemachine"
)

// Config says how a node joins its cluster. Zero durations and sizes take
// the defaults named on each field.
type Config struct {
	// NodeID is this node's id in the cluster: 1 or more, unique.
	NodeID uint64
	// RaftAddress is host:port where this node's raft transport listens
	// and where its peers reach it.
	RaftAddress string
	// ListenAddress, when set, is where the transport listens instead,
	// its peers still dialing RaftAddress (a NAT, a container's port map,
	// or a proxy in front of it).
	ListenAddress string
	// DataDir holds the raft log and every shard's store. The store lives
	// beside the raft log and goes with it: never copy one without the other.
	DataDir string
	// Members are the initial members, node id to raft address, this node
	// included. Every node of a new cluster gets the same map. A node that
	// restarts ignores it; a node added later sets Join and no Members.
	Members map[uint64]string
	// Join makes a node that was added to a running cluster wait for it.
	Join bool
	// RTT is the round trip between nodes (default 50 ms); elections take
	// ElectionRTT of them (default 10) and heartbeats HeartbeatRTT (default 1).
	RTT          time.Duration
	ElectionRTT  uint64
	HeartbeatRTT uint64
	// SnapshotEntries is how many entries apply between automatic snapshots
	// (default 100,000); CompactionOverhead how many entries the raft log
	// keeps behind a snapshot for slow followers (default 20,000).
	SnapshotEntries    uint64
	CompactionOverhead uint64
	// MaxInMemLogSize bounds the raft log in memory not yet applied
	// (default 512 MiB); past it proposals wait (ErrSystemBusy, retried).
	MaxInMemLogSize uint64
	// LogDB sizes dragonboat's raft log store (default DefaultLogDB): see
	// LogDBSize.
	LogDB LogDBSize
	// TickInterval is how often the leader proposes an empty entry when
	// nothing else was proposed, so safeTime keeps moving on an idle
	// cluster (default 1 s; negative: never).
	TickInterval time.Duration
	// Logger receives the host's logs (default slog.Default()).
	Logger *slog.Logger
	// ClockOffset shifts this node's proposer clock, for tests that need
	// stamps at a chosen time (an hour boundary). Stamps stay monotonic:
	// apply stamps max(proposed, previous + 1) whatever the clock says.
	ClockOffset time.Duration
	// Disk sets the storage gate (disk.go): off by default.
	Disk DiskConfig
	// OnCorrupt is told, once, when this node finds its stored data
	// corrupted (corrupt.go), after the finding is recorded in the data
	// directory. The broker prints its FATAL line and exits; nil only
	// logs it, and the shards' reads answer the finding from then on.
	OnCorrupt func(*CorruptError)
}

func (c *Config) withDefaults() Config {
	d := *c
	if d.RTT <= 0 {
		d.RTT = 50 * time.Millisecond
	}
	if d.ElectionRTT == 0 {
		d.ElectionRTT = 10
	}
	if d.HeartbeatRTT == 0 {
		d.HeartbeatRTT = 1
	}
	if d.SnapshotEntries == 0 {
		d.SnapshotEntries = 100_000
	}
	if d.CompactionOverhead == 0 {
		d.CompactionOverhead = 20_000
	}
	if d.MaxInMemLogSize == 0 {
		d.MaxInMemLogSize = 512 << 20
	}
	if d.TickInterval == 0 {
		d.TickInterval = time.Second
	}
	if d.LogDB == "" {
		d.LogDB = DefaultLogDB
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	d.Disk = d.Disk.withDefaults()
	return d
}

// Validate reports the first field of c that cannot work, naming it.
func (c *Config) Validate() error {
	switch {
	case c.NodeID == 0:
		return errors.New("raftlog: NodeID is 0; it is 1 or more")
	case c.RaftAddress == "":
		return errors.New("raftlog: RaftAddress is empty; it is host:port")
	case c.DataDir == "":
		return errors.New("raftlog: DataDir is empty")
	case c.Join && len(c.Members) > 0:
		return errors.New("raftlog: a joining node takes no Members")
	case !c.Join && len(c.Members) > 0 && c.Members[c.NodeID] == "":
		return fmt.Errorf("raftlog: Members do not name node %d, this node", c.NodeID)
	case c.ElectionRTT != 0 && c.ElectionRTT <= 2*max(c.HeartbeatRTT, 1):
		return fmt.Errorf("raftlog: ElectionRTT %d must exceed twice HeartbeatRTT %d", c.ElectionRTT, c.HeartbeatRTT)
	case c.LogDB != "" && !slices.Contains(LogDBSizes, c.LogDB):
		return fmt.Errorf("raftlog: LogDB %q is not one of %v", c.LogDB, LogDBSizes)
	}
	return c.Disk.validate()
}

// Host is one node: a dragonboat NodeHost and the shards it runs.
type Host struct {
	cfg Config
	nh  *dragonboat.NodeHost
	log *slog.Logger

	mu     sync.Mutex
	shards map[uint64]*Shard
	closed bool

	// disk watches the data directory (nil: the gate is off on this node);
	// diskStop and diskDone stop its goroutine.
	disk               *diskWatch
	diskStop, diskDone chan struct{}
	// corrupted is the first finding of corruption (corrupt.go).
	corrupted atomic.Pointer[CorruptError]
	// events logs raft's state changes (events.go).
	events *events
}

// NewHost starts the node's raft host. Shards start with StartShard.
func NewHost(cfg Config) (*Host, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := cfg.withDefaults()
	// A finding of an earlier run stands until the node is rebuilt.
	if e, err := ReadMarker(c.DataDir); e != nil || err != nil {
		if e != nil {
			return nil, e
		}
		return nil, err
	}
	setDragonboatLogger(c.Logger)
	h := &Host{cfg: c, log: c.Logger, shards: map[uint64]*Shard{}, events: newEvents(c.Logger, c.NodeID)}
	watchRaftLogDB(h)
	nh, err := dragonboat.NewNodeHost(config.NodeHostConfig{
		NodeHostDir:         filepath.Join(c.DataDir, "raft"),
		WALDir:              filepath.Join(c.DataDir, "raft"),
		RTTMillisecond:      uint64(max(c.RTT.Milliseconds(), 1)),
		RaftAddress:         c.RaftAddress,
		ListenAddress:       c.ListenAddress,
		RaftEventListener:   leaderListener{h},
		SystemEventListener: sysListener{h.events},
		Expert:              config.ExpertConfig{LogDB: c.LogDB.config()},
	})
	if err != nil {
		h.events.close()
		return nil, fmt.Errorf("raftlog: start raft host %d at %s: %w", c.NodeID, c.RaftAddress, err)
	}
	h.nh = nh
	h.events.nh.Store(nh)
	if c.Disk.HighPct > 0 {
		// The first reading before any shard starts: a node that starts
		// on a full disk refuses growing writes from its first request.
		h.disk = newDiskWatch(c.Disk, c.DataDir)
		h.disk.poll()
		h.diskStop, h.diskDone = make(chan struct{}), make(chan struct{})
		go h.watchDisk(h.diskStop, h.diskDone)
	}
	return h, nil
}

// leaderListener keeps a shard's leader as the events name it and wakes
// its LeaderChanged watchers. dragonboat sends the event before GetLeaderID
// knows of the change, so Leader answers from the event, not from there.
type leaderListener struct{ h *Host }

func (l leaderListener) LeaderUpdated(info raftio.LeaderInfo) {
	if s := l.h.Shard(info.ShardID); s != nil {
		l.h.events.leader(info, s.leader.Swap(info.LeaderID))
		s.watch.wake([]string{leaderKey})
	}
}

// NodeID returns this node's id.
func (h *Host) NodeID() uint64 { return h.cfg.NodeID }

// StartShard starts shard shardID on this node with the given appliers, by
// op kind: every family the shard runs, the queue log's
// (queuelog.Appliers) included, beside raftlog's own node-status op.
// Every node of a shard must run the same appliers.
func (h *Host) StartShard(shardID uint64, appliers map[OpKind]Applier) (*Shard, error) {
	all := map[OpKind]Applier{OpNodeStatus: nodeStatusApplier{}}
	for _, k := range slices.Sorted(maps.Keys(appliers)) {
		if _, ok := all[k]; ok {
			return nil, fmt.Errorf("raftlog: op kind %d is raftlog's own", k)
		}
		all[k] = appliers[k]
	}
	s := &Shard{id: shardID, host: h, appliers: all, watch: newWatchers(), log: h.log.With("shard", shardID)}
	// The shard is listed before its replica starts, and h.mu is not held
	// while it does: dragonboat's leader events look the shard up.
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrClosed
	}
	if _, ok := h.shards[shardID]; ok {
		h.mu.Unlock()
		return nil, fmt.Errorf("raftlog: shard %d is running already", shardID)
	}
	h.shards[shardID] = s
	h.mu.Unlock()
	if err := h.checkReplica(shardID); err != nil {
		h.mu.Lock()
		delete(h.shards, shardID)
		h.mu.Unlock()
		return nil, err
	}

	dir := filepath.Join(h.cfg.DataDir, "sm", "shard-"+strconv.FormatUint(shardID, 10))
	factory := func(shard, replica uint64) sm.IOnDiskStateMachine {
		m := newStateMachine(shard, replica, dir, all, s.log, s.watch)
		m.onCorrupt = h.corrupt
		s.sm.Store(m)
		return m
	}
	members := map[uint64]dragonboat.Target{}
	for id, addr := range h.cfg.Members {
		members[id] = addr
	}
	err := h.nh.StartOnDiskReplica(members, h.cfg.Join, factory, config.Config{
		ReplicaID:          h.cfg.NodeID,
		ShardID:            shardID,
		CheckQuorum:        true,
		PreVote:            true,
		ElectionRTT:        h.cfg.ElectionRTT,
		HeartbeatRTT:       h.cfg.HeartbeatRTT,
		SnapshotEntries:    h.cfg.SnapshotEntries,
		CompactionOverhead: h.cfg.CompactionOverhead,
		MaxInMemLogSize:    h.cfg.MaxInMemLogSize,
		// The shard returned has opened its store: LocalRead and
		// WaitRecords work at once instead of answering ErrClosed.
		WaitReady: true,
	})
	if err != nil {
		h.mu.Lock()
		delete(h.shards, shardID)
		h.mu.Unlock()
		return nil, fmt.Errorf("raftlog: start shard %d on node %d: %w", shardID, h.cfg.NodeID, err)
	}
	if h.cfg.TickInterval > 0 {
		s.startTicker(h.cfg.TickInterval)
	}
	return s, nil
}

// running returns the running shards.
func (h *Host) running() []*Shard {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Collect(maps.Values(h.shards))
}

// Shard returns a running shard, or nil.
func (h *Host) Shard(shardID uint64) *Shard {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.shards[shardID]
}

// Close stops every shard and the raft host. Answered writes are durable
// already; Close waits for nothing else.
func (h *Host) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	shards := slices.Collect(maps.Values(h.shards))
	h.mu.Unlock()
	if h.diskStop != nil {
		close(h.diskStop)
		<-h.diskDone
	}
	for _, s := range shards {
		s.stopTicker()
	}
	// The events goroutine stops first: nothing it reads of the node host
	// is there once that closes, and events published after are dropped.
	h.events.close()
	h.nh.Close()
	for _, s := range shards {
		s.sm.Store(nil)   // reads now answer ErrClosed
		s.watch.wakeAll() // and waits wake up to see it
	}
}

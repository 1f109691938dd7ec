package raftlog

import (
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/lni/dragonboat/v4"
	"github.com/lni/dragonboat/v4/raftio"
)

// The state changes an operator reads in the log, one line each: a
// shard's leader elected or lost, a member added or removed, a peer
// unreachable or reachable again. dragonboat's own lines about them
// (dozens per election) log at debug (logger.go).
//
// dragonboat publishes system events on an unbuffered channel read by
// one goroutine, which its engine waits on: the listener only queues
// them, and the host's events goroutine does the work (a membership
// change reads the node's local view of the shard).

// eventQueue is how many system events wait for the events goroutine;
// past it an event is dropped (a log line lost, nothing else).
const eventQueue = 256

// events turns raft's events into log lines, each line once per change.
type events struct {
	log  *slog.Logger
	self uint64
	// nh is the node host, set once it exists (events before it read nil).
	nh atomic.Pointer[dragonboat.NodeHost]

	queue chan sysEvent
	stop  chan struct{}
	done  chan struct{}

	mu sync.Mutex
	// members is each shard's replicas as last logged; down the peers
	// last logged unreachable, by raft address.
	members map[uint64]map[uint64]string
	down    map[string]bool
}

// sysEvent is one queued system event.
type sysEvent struct {
	kind    int
	shard   uint64
	address string
}

const (
	evMembers = iota
	evConnected
	evFailed
)

func newEvents(log *slog.Logger, self uint64) *events {
	e := &events{log: log, self: self, queue: make(chan sysEvent, eventQueue), stop: make(chan struct{}),
		done: make(chan struct{}), members: map[uint64]map[uint64]string{}, down: map[string]bool{}}
	go e.run()
	return e
}

// close stops the events goroutine; events after it are dropped.
func (e *events) close() {
	select {
	case <-e.stop:
	default:
		close(e.stop)
	}
	<-e.done
}

func (e *events) run() {
	defer close(e.done)
	for {
		select {
		case <-e.stop:
			return
		case ev := <-e.queue:
			switch ev.kind {
			case evMembers:
				e.membersChanged(ev.shard)
			case evConnected, evFailed:
				e.connection(ev.address, ev.kind == evFailed)
			}
		}
	}
}

func (e *events) publish(ev sysEvent) {
	select {
	case e.queue <- ev:
	case <-e.stop:
	default: // the goroutine is behind: drop a log line rather than stall raft
	}
}

// leader logs a shard's leader when the event changes it: prev is the
// leader the shard knew before (0 none), which the shard keeps.
func (e *events) leader(info raftio.LeaderInfo, prev uint64) {
	switch {
	case prev == info.LeaderID:
	case info.LeaderID == 0:
		e.log.Warn("raft leader lost", "shard", info.ShardID, "term", info.Term, "was", prev)
	default:
		e.log.Info("raft leader elected", "shard", info.ShardID, "leader", info.LeaderID, "term", info.Term,
			"self", info.LeaderID == e.self)
	}
}

// membersChanged logs the replicas added to and removed from shard since
// the last look, from this node's local view (no quorum needed).
func (e *events) membersChanged(shard uint64) {
	nh := e.nh.Load()
	if nh == nil {
		return
	}
	info := nh.GetNodeHostInfo(dragonboat.NodeHostInfoOption{SkipLogInfo: true})
	if info == nil {
		return // the node host is closing
	}
	var now map[uint64]string
	for _, si := range info.ShardInfoList {
		if si.ShardID == shard {
			now = maps.Clone(si.Replicas)
		}
	}
	if now == nil {
		return
	}
	e.mu.Lock()
	prev, seen := e.members[shard]
	e.members[shard] = now
	e.mu.Unlock()
	if !seen {
		e.log.Info("raft members", "shard", shard, "members", now)
		return
	}
	for _, id := range slices.Sorted(maps.Keys(now)) {
		if _, ok := prev[id]; !ok {
			e.log.Info("raft member added", "shard", shard, "replica", id, "address", now[id])
		}
	}
	for _, id := range slices.Sorted(maps.Keys(prev)) {
		if _, ok := now[id]; !ok {
			e.log.Warn("raft member removed", "shard", shard, "replica", id, "address", prev[id])
		}
	}
}

// connection logs a peer's first connection and each change between
// reachable and unreachable (dragonboat retries a failed peer every few
// hundred milliseconds, each a failed event).
func (e *events) connection(address string, failed bool) {
	e.mu.Lock()
	was, seen := e.down[address]
	e.down[address] = failed
	e.mu.Unlock()
	switch {
	case seen && was == failed:
	case failed:
		e.log.Warn("raft peer unreachable", "address", address)
	case seen:
		e.log.Info("raft peer reachable again", "address", address)
	default:
		e.log.Info("raft peer connected", "address", address)
	}
}

// sysListener is dragonboat's system event listener: it queues what
// events logs and ignores the rest.
type sysListener struct{ e *events }

func (l sysListener) NodeReady(i raftio.NodeInfo) {
	l.e.publish(sysEvent{kind: evMembers, shard: i.ShardID})
}
func (l sysListener) MembershipChanged(i raftio.NodeInfo) {
	l.e.publish(sysEvent{kind: evMembers, shard: i.ShardID})
}
func (l sysListener) ConnectionEstablished(i raftio.ConnectionInfo) {
	if !i.SnapshotConnection {
		l.e.publish(sysEvent{kind: evConnected, address: i.Address})
	}
}
func (l sysListener) ConnectionFailed(i raftio.ConnectionInfo) {
	if !i.SnapshotConnection {
		l.e.publish(sysEvent{kind: evFailed, address: i.Address})
	}
}
func (sysListener) NodeHostShuttingDown()                     {}
func (sysListener) NodeUnloaded(raftio.NodeInfo)              {}
func (sysListener) NodeDeleted(raftio.NodeInfo)               {}
func (sysListener) SendSnapshotStarted(raftio.SnapshotInfo)   {}
func (sysListener) SendSnapshotCompleted(raftio.SnapshotInfo) {}
func (sysListener) SendSnapshotAborted(raftio.SnapshotInfo)   {}
func (sysListener) SnapshotReceived(raftio.SnapshotInfo)      {}
func (l sysListener) SnapshotRecovered(i raftio.SnapshotInfo) {
	if i.From == 0 || i.From == l.e.self {
		return // the node's own, at start
	}
	l.e.log.Info("raft snapshot recovered: caught up from a peer's snapshot", "shard", i.ShardID, "index", i.Index, "from", i.From)
}
func (sysListener) SnapshotCreated(raftio.SnapshotInfo)   {}
func (sysListener) SnapshotCompacted(raftio.SnapshotInfo) {}
func (sysListener) LogCompacted(raftio.EntryInfo)         {}
func (sysListener) LogDBCompacted(raftio.EntryInfo)       {}

package raftlog

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/lni/dragonboat/v4/raftio"

	"github.com/queen-mq/queen-go/testkit/syncbuf"
)

// eventLog is an events whose lines go to a buffer, without its goroutine.
func eventLog(self uint64) (*events, *bytes.Buffer) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))
	return &events{log: log, self: self, members: map[uint64]map[uint64]string{},
		down: map[string]bool{}}, &buf
}

// TestEventsLeader: one line per change of a shard's leader, none for an
// event that repeats the leader last logged, and "lost" only after one
// was known.
func TestEventsLeader(t *testing.T) {
	e, buf := eventLog(2)
	known := map[uint64]uint64{}
	for _, li := range []raftio.LeaderInfo{
		{ShardID: 1, LeaderID: 0, Term: 1}, // nothing known yet: no line
		{ShardID: 1, LeaderID: 3, Term: 2},
		{ShardID: 1, LeaderID: 3, Term: 2}, // again: no line
		{ShardID: 1, LeaderID: 0, Term: 3},
		{ShardID: 1, LeaderID: 2, Term: 4},
		{ShardID: 7, LeaderID: 2, Term: 1},
	} {
		// The shard's leader before the event, as the shard keeps it.
		e.leader(li, known[li.ShardID])
		known[li.ShardID] = li.LeaderID
	}
	want := `level=INFO msg="raft leader elected" shard=1 leader=3 term=2 self=false
level=WARN msg="raft leader lost" shard=1 term=3 was=3
level=INFO msg="raft leader elected" shard=1 leader=2 term=4 self=true
level=INFO msg="raft leader elected" shard=7 leader=2 term=1 self=true
`
	if buf.String() != want {
		t.Fatalf("lines:\n%s\nwant:\n%s", buf, want)
	}
}

// TestEventsConnection: a peer's first connection, then only changes
// between unreachable and reachable (dragonboat repeats failures).
func TestEventsConnection(t *testing.T) {
	e, buf := eventLog(1)
	for _, c := range []struct {
		addr   string
		failed bool
	}{
		{"10.0.0.2:6633", false}, {"10.0.0.2:6633", false}, {"10.0.0.2:6633", true}, {"10.0.0.2:6633", true},
		{"10.0.0.2:6633", true}, {"10.0.0.2:6633", false}, {"10.0.0.3:6633", true}, {"10.0.0.3:6633", false},
	} {
		e.connection(c.addr, c.failed)
	}
	want := `level=INFO msg="raft peer connected" address=10.0.0.2:6633
level=WARN msg="raft peer unreachable" address=10.0.0.2:6633
level=INFO msg="raft peer reachable again" address=10.0.0.2:6633
level=WARN msg="raft peer unreachable" address=10.0.0.3:6633
level=INFO msg="raft peer reachable again" address=10.0.0.3:6633
`
	if buf.String() != want {
		t.Fatalf("lines:\n%s\nwant:\n%s", buf, want)
	}
}

// TestEventsHost: a real host logs its shard's members once the shard
// is ready and its leader once elected, and none of dragonboat's election
// steps at info.
func TestEventsHost(t *testing.T) {
	var buf syncbuf.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	dir, addr := t.TempDir(), freeAddr(t)
	h, err := NewHost(Config{NodeID: 1, RaftAddress: addr, DataDir: dir, Members: map[uint64]string{1: addr},
		Logger: log, TickInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s, err := h.StartShard(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for s.Leader() == 0 {
		<-s.LeaderChanged()
	}
	want := []string{`msg="raft leader elected" shard=1 leader=1`, `msg="raft members" shard=1 members=map[1:` + addr + `]`}
	deadline := time.Now().Add(10 * time.Second)
	for _, w := range want {
		for !strings.Contains(buf.String(), w) {
			if time.Now().After(deadline) {
				t.Fatalf("the log lacks %s:\n%s", w, buf.String())
			}
			time.Sleep(10 * time.Millisecond) // polling the log for a line, with a deadline
		}
	}
	if strings.Contains(buf.String(), "became candidate") || strings.Contains(buf.String(), "PreVote") {
		t.Fatalf("dragonboat's election steps logged at info:\n%s", buf.String())
	}
}

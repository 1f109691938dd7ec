package raftlog_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// A running node that meets a record whose bytes fail their checksum
// tells OnCorrupt once, records the finding in its data directory, serves
// no read after it, and refuses to start again with the same finding.
func TestCorruptNodeStopsAndStaysStopped(t *testing.T) {
	c := raftlogtest.New(t, 1, nil)
	var told atomic.Int32
	var finding atomic.Pointer[raftlog.CorruptError]
	c.Tweak = func(cfg *raftlog.Config) {
		cfg.OnCorrupt = func(e *raftlog.CorruptError) { told.Add(1); finding.Store(e) }
	}
	c.StartAll()
	_, s := c.Leader()
	for i := range 20 {
		raftlogtest.Push(t, s, raftlogtest.Item("q", "p", fmt.Sprintf("t%d", i), []byte(fmt.Sprintf(`{"i":%d}`, i))))
	}
	dataDir := c.Config(1).DataDir
	seg := filepath.Join(dataDir, "sm", "shard-1.segments", "0000000000000000.seg")
	b, err := os.ReadFile(seg)
	if err != nil || len(b) < 20 {
		t.Fatalf("segment %s: %d bytes, %v", seg, len(b), err)
	}
	b[len(b)/2] ^= 0x10
	if err := os.WriteFile(seg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = s.LocalRead(func(v *raftlog.View) (any, error) {
		return queuelog.ReadRecords(v, raftlogtest.Tenant, "q", "p", 0, queuelog.ReadLimits{})
	})
	if !errors.Is(err, raftlog.ErrCorrupt) {
		t.Fatalf("read over the flipped segment: %v, want ErrCorrupt", err)
	}
	if told.Load() != 1 || finding.Load().Path != seg {
		t.Fatalf("OnCorrupt told %d times, finding %+v; want once, naming %s", told.Load(), finding.Load(), seg)
	}
	if e := c.Hosts[1].Corrupted(); e == nil || e.Path != seg {
		t.Fatalf("Host.Corrupted() = %+v", e)
	}
	m, err := raftlog.ReadMarker(dataDir)
	if err != nil || m == nil || m.Path != seg {
		t.Fatalf("marker %+v %v, want one naming %s", m, err, seg)
	}
	c.Stop(1)
	_, err = raftlog.NewHost(c.Config(1))
	var ce *raftlog.CorruptError
	if !errors.As(err, &ce) || !ce.Marked || ce.Path != seg {
		t.Fatalf("starting the node again: %v, want the marked finding", err)
	}
}

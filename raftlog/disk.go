package raftlog

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"strings"
	"sync/atomic"
	"time"
)

// The storage gate. A node whose disk fills past its high mark cannot
// refuse to apply what its peers committed: a follower must apply every
// entry, and one that cannot write stops. So the refusal happens where an
// entry is proposed, on every node alike: each node polls the file system
// of its data directory, and when it crosses its high mark it proposes a
// tiny node-status op (always allowed) that puts it in the shard's
// replicated set of full nodes; when it falls back below its low mark it
// proposes another that takes it out. Every proposer refuses a command
// that may grow the store (ErrStorageFull) while that set is not empty, or
// while its own disk is above its mark before its status op committed.
// What shrinks the store or keeps it as it is goes on: acks, pops, lease
// extensions, deletes, trims, sweeps, ticks, timer fires. The headroom
// between the mark and a full disk absorbs what was admitted before the
// set reached every proposer.

// ErrStorageFull is the error of a proposal refused by the storage gate:
// nothing was proposed, so the write did not happen and will not.
var ErrStorageFull = errors.New("raftlog: storage full")

// DiskConfig sets the storage gate. Its zero value turns the gate off.
type DiskConfig struct {
	// HighPct is the share of its file system's space (percent, 0 < HighPct
	// <= 100) past which this node reports its data directory full; 0
	// turns the gate off on this node (it still honours its peers'
	// reports).
	HighPct float64
	// LowPct is the share below which a full node reports itself no longer
	// full (default HighPct - 5, at least 0; it must be below HighPct).
	LowPct float64
	// Interval is how often the disk is polled (default 1 s).
	Interval time.Duration
	// Usage returns the percent used of the file system holding dir
	// (default StatfsUsage). Tests inject their own.
	Usage func(dir string) (float64, error)
}

func (d DiskConfig) withDefaults() DiskConfig {
	if d.HighPct <= 0 {
		return d
	}
	if d.LowPct <= 0 {
		d.LowPct = max(d.HighPct-5, d.HighPct/2) // above 0: a full node must be able to clear itself
	}
	if d.Interval <= 0 {
		d.Interval = time.Second
	}
	if d.Usage == nil {
		d.Usage = StatfsUsage
	}
	return d
}

func (d DiskConfig) validate() error {
	switch {
	case d.HighPct < 0 || d.HighPct > 100 || math.IsNaN(d.HighPct):
		return fmt.Errorf("raftlog: Disk.HighPct %v is outside 0..100 (0: off)", d.HighPct)
	case d.LowPct < 0 || math.IsNaN(d.LowPct) || (d.HighPct > 0 && d.LowPct >= d.HighPct):
		return fmt.Errorf("raftlog: Disk.LowPct %v must be below Disk.HighPct %v", d.LowPct, d.HighPct)
	}
	return nil
}

// StorageGrower is an Applier that tells which of its ops may grow the
// store. While the storage gate is closed a proposer refuses a command
// holding an op whose Grows is true; an Applier that does not implement
// StorageGrower grows the store with every op. Grows runs on the
// proposer, never in apply; data that does not decode may answer false
// (apply refuses it anyway).
type StorageGrower interface {
	Grows(data []byte) bool
}

type allowWhenFullKey struct{}

// AllowWhenFull marks ctx's proposals as the broker's own bookkeeping,
// which must go on while a disk is full (the S3 sink's leases, intents and
// pointers so that it can drain; retention's notes beside its trims): the
// storage gate lets them pass. Never for what a client asked.
func AllowWhenFull(ctx context.Context) context.Context {
	return context.WithValue(ctx, allowWhenFullKey{}, true)
}

func allowedWhenFull(ctx context.Context) bool { return ctx.Value(allowWhenFullKey{}) != nil }

// diskWatch polls this node's data directory and latches whether it is
// full: set at HighPct, cleared below LowPct.
type diskWatch struct {
	cfg  DiskConfig
	dir  string
	pct  atomic.Uint64 // math.Float64bits of the last reading; NaN before one
	full atomic.Bool
	err  atomic.Pointer[string] // the last reading's error, nil after a good one
}

func newDiskWatch(cfg DiskConfig, dir string) *diskWatch {
	d := &diskWatch{cfg: cfg, dir: dir}
	d.pct.Store(math.Float64bits(math.NaN()))
	return d
}

// poll reads the disk once and latches; it reports whether full changed.
func (d *diskWatch) poll() (changed bool) {
	pct, err := d.cfg.Usage(d.dir)
	if err != nil {
		msg := err.Error()
		d.err.Store(&msg)
		return false
	}
	d.err.Store(nil)
	d.pct.Store(math.Float64bits(pct))
	was := d.full.Load()
	switch {
	case !was && pct >= d.cfg.HighPct:
		d.full.Store(true)
	case was && pct < d.cfg.LowPct:
		d.full.Store(false)
	}
	return was != d.full.Load()
}

func (d *diskWatch) usedPct() float64 { return math.Float64frombits(d.pct.Load()) }

// watchDisk polls every Interval until stop closes, and has each running
// shard's replicated state agree with what this node's disk says.
func (h *Host) watchDisk(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(h.disk.cfg.Interval)
	defer t.Stop()
	for {
		if h.disk.poll() {
			h.log.Warn("disk mark crossed", "full", h.disk.full.Load(), "usedPct", h.disk.usedPct(),
				"highPct", h.disk.cfg.HighPct, "lowPct", h.disk.cfg.LowPct, "dir", h.cfg.DataDir)
		}
		for _, s := range h.running() {
			s.reportDisk(stop)
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// reportDisk proposes this node's status when the shard's state says
// otherwise than its disk; a proposal that fails is tried at the next poll.
func (s *Shard) reportDisk(stop chan struct{}) {
	d, m := s.host.disk, s.sm.Load()
	if m == nil {
		return
	}
	if math.IsNaN(d.usedPct()) || d.err.Load() != nil {
		return // no good reading of the disk: nothing to report either way
	}
	self := s.host.cfg.NodeID
	_, listed := m.fullNodes()[self]
	full := d.full.Load()
	if listed == full {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	op := nodeStatusOp{Node: self, Full: full, Hundredths: hundredths(d.usedPct())}
	if _, err := s.Propose(ctx, Command{Ops: []Op{op.Op()}}); err != nil {
		s.log.Warn("disk status not committed; asking again at the next poll", "full", full, "err", err)
		return
	}
	s.log.Info("disk status committed", "full", full, "usedPct", d.usedPct())
}

func hundredths(pct float64) uint64 {
	if math.IsNaN(pct) || pct < 0 {
		return 0
	}
	return uint64(math.Round(min(pct, 100) * 100))
}

// gate refuses cmd with ErrStorageFull when a voter's disk is full and
// cmd may grow the store.
func (s *Shard) gate(ctx context.Context, cmd *Command) error {
	localFull := s.host.disk != nil && s.host.disk.full.Load()
	var full map[uint64]uint64
	if m := s.sm.Load(); m != nil {
		full = m.fullNodes()
	}
	if !localFull && len(full) == 0 || allowedWhenFull(ctx) {
		return nil
	}
	for _, op := range cmd.Ops {
		if s.grows(op) {
			s.refused.Add(1)
			return fmt.Errorf("%w: %s; writes that grow the store are refused until it is below its low mark (acks, pops and deletes still work)",
				ErrStorageFull, s.whoIsFull(localFull, full))
		}
	}
	return nil
}

func (s *Shard) grows(op Op) bool {
	g, ok := s.appliers[op.Kind].(StorageGrower)
	return !ok || g.Grows(op.Data)
}

// whoIsFull names the full nodes: "node 2's disk is above its high mark
// (91.20% used)".
func (s *Shard) whoIsFull(localFull bool, full map[uint64]uint64) string {
	self := s.host.cfg.NodeID
	if _, ok := full[self]; localFull && !ok {
		full = maps.Clone(full) // the state machine's is never written
		if full == nil {
			full = map[uint64]uint64{}
		}
		full[self] = hundredths(s.host.disk.usedPct())
	}
	var parts []string
	for _, n := range sortedNodes(full) {
		parts = append(parts, fmt.Sprintf("node %d (%.2f%% used)", n, float64(full[n])/100))
	}
	verb := "is"
	if len(parts) > 1 {
		verb = "are"
	}
	return strings.Join(parts, ", ") + " " + verb + " above the disk high mark"
}

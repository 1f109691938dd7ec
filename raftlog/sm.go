package raftlog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	sm "github.com/lni/dragonboat/v4/statemachine"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
)

// metaKey holds the state machine's own state: the applied index and the
// last stamp, written in the same batch as the data they describe.
// formatKey (store_format.go), beside it, holds the store's format.
//
// INVARIANT: every other key of the store belongs to an applier, is not
// empty, and starts with a byte in 0x01..0xfe, so keyspaceEnd bounds them
// all; the state machine's own keys (meta, format, segments, the disk
// status of disk_status.go) start with 0x00.
var metaKey = []byte{0x00, 'm'}

var keyspaceEnd = []byte{0xff}

// stateMachine is the on-disk state machine of one shard: dragonboat's
// IOnDiskStateMachine over Pebble. See doc.go for why apply must be
// deterministic.
type stateMachine struct {
	shardID   uint64
	replicaID uint64
	dir       string
	appliers  map[OpKind]Applier // looked up by kind, never iterated
	log       *slog.Logger
	watch     *watchers

	// mu guards db against Close while Lookup runs beside Update.
	mu sync.RWMutex
	db *pebble.DB

	applied atomic.Uint64 // index of the last applied entry
	stamp   atomic.Int64  // stamp of the last applied entry: safeTime
	tx      Txn           // reused by Update, which dragonboat never runs concurrently
	cache   metaCache     // the queue log's metadata, as of the last Update (Update's own)
	dedup   dedupFilter   // the dedup keys, as of the last Update (Update's own)

	dedupStats dedupCounters

	// segs holds the record bytes (segments.go); segLimit is a segment's
	// size limit (segmentBytes unless a test sets it).
	segs     *segments
	segLimit int64
	// hookSegs is segs for flushBegin, which Pebble calls from its own
	// goroutines, from Open on.
	hookSegs atomic.Pointer[segments]
	// saving counts the snapshot saves in flight: segments they may read
	// are not removed meanwhile.
	saving atomic.Int32
	// diskFull is the storage gate's set of full nodes as of the last
	// Update (disk_status.go), read by proposers.
	diskFull atomic.Pointer[map[uint64]uint64]
	// onCorrupt is told of a corruption the store or the segments found
	// (sm_corrupt.go); nil in tests that run no host: the finding is
	// only logged.
	onCorrupt func(*CorruptError)
	// failed is the finding once one was made: reads answer it.
	failed atomic.Pointer[CorruptError]
}

var _ sm.IOnDiskStateMachine = (*stateMachine)(nil)

func newStateMachine(shardID, replicaID uint64, dir string, appliers map[OpKind]Applier, log *slog.Logger, w *watchers) *stateMachine {
	s := &stateMachine{shardID: shardID, replicaID: replicaID, dir: dir, appliers: appliers, log: log, watch: w, segLimit: segmentBytes}
	s.tx.appliers = appliers
	s.dedup.minKeys, s.dedup.stats = defaultFilterKeys, &s.dedupStats
	return s
}

// blockCache is shared by every shard's store in the process.
var blockCache = sync.OnceValue(func() *pebble.Cache { return pebble.NewCache(128 << 20) })

// pebbleOptions are the store's settings. Bloom filters on every level keep
// the dedup lookups, which mostly miss, from reading data blocks.
//
// Pebble writes no WAL: the raft log is the state machine's log. A state
// becomes durable when a memtable is flushed (by Sync, or when it fills),
// and what is not yet is replayed from the raft log after a crash, from the
// index Open returns; dragonboat drops its log only up to a snapshot, which
// Sync precedes. flushBegin runs before every flush writes: it makes the
// segments durable first, so a durable pointer never outruns its bytes.
func pebbleOptions(flushBegin func()) *pebble.Options {
	o := &pebble.Options{Logger: quietPebble{}, Cache: blockCache(), DisableWAL: true,
		// A large memtable lets most records go by once: flushed late,
		// many are trimmed or overwritten before a compaction rewrites them.
		MemTableSize: 64 << 20}
	o.EventListener = &pebble.EventListener{FlushBegin: func(pebble.FlushInfo) { flushBegin() }}
	for i := range o.Levels {
		o.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	o.EnsureDefaults()
	return o
}

// quietPebble drops Pebble's info lines and keeps its errors off stderr's
// default logger: the host logs what matters through slog.
type quietPebble struct{}

func (quietPebble) Infof(string, ...any)  {}
func (quietPebble) Errorf(string, ...any) {}
func (quietPebble) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf("pebble: "+format, args...))
}

// Open opens the store and returns the index of the last entry it holds.
func (s *stateMachine) Open(<-chan struct{}) (uint64, error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrStorage, err)
	}
	db, err := pebble.Open(s.dir, s.watchCorruption(pebbleOptions(s.flushBegin)))
	if err != nil {
		return 0, s.openError(err)
	}
	seg, end, err := readSegKey(pebbleSource{db}.Get)
	if err == nil {
		s.segs, err = openSegments(s.dir+".segments", s.segLimit, seg, end)
	}
	if err == nil {
		s.segs.onCorrupt = s.corrupted
	}
	if err != nil {
		db.Close()
		return 0, s.finding(err)
	}
	s.hookSegs.Store(s.segs)
	fail := func(err error) (uint64, error) {
		s.hookSegs.Store(nil)
		db.Close()
		s.segs.close()
		return 0, s.finding(err)
	}
	if err := upgradeStore(db, s.segs); err != nil {
		return fail(err)
	}
	applied, stamp, err := readMeta(db)
	if err != nil {
		return fail(err)
	}
	s.tx.segs = s.segs
	s.mu.Lock()
	s.db = db
	s.mu.Unlock()
	if err := s.upgradeFamilies(); err != nil {
		return 0, err
	}
	if err := db.Flush(); err != nil { // the upgrades' writes: there is no WAL
		return 0, fmt.Errorf("%w: flush: %w", ErrStorage, err)
	}
	s.dedup.rebuild(db)
	if err := s.loadDisk(db); err != nil {
		return 0, err
	}
	s.applied.Store(applied)
	s.stamp.Store(stamp)
	return applied, nil
}

// flushBegin is Pebble's FlushBegin hook: the active segment is made
// durable before any memtable that points into it is.
func (s *stateMachine) flushBegin() {
	segs := s.hookSegs.Load()
	if segs == nil {
		return // Pebble replaying an old WAL as it opens: no segments yet
	}
	if err := segs.sync(); err != nil {
		// A flush that went on would make pointers durable before their
		// bytes: a node that cannot fsync must stop.
		panic(fmt.Sprintf("raftlog: %v", err))
	}
}

func readMeta(r pebble.Reader) (applied uint64, stamp int64, err error) {
	v, closer, err := r.Get(metaKey)
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("%w: read meta: %w", ErrStorage, err)
	}
	defer closer.Close()
	if len(v) != 16 {
		return 0, 0, fmt.Errorf("%w: meta of %d bytes", ErrStorage, len(v))
	}
	return binary.BigEndian.Uint64(v), int64(binary.BigEndian.Uint64(v[8:])), nil
}

func metaValue(applied uint64, stamp int64) []byte {
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 16), applied)
	return binary.BigEndian.AppendUint64(v, uint64(stamp))
}

// Update applies a run of committed entries in one Pebble batch, with the
// last entry's index and stamp.
func (s *stateMachine) Update(entries []sm.Entry) ([]sm.Entry, error) {
	if e := s.failed.Load(); e != nil {
		return nil, e // never apply over a store that failed a check
	}
	if err := s.dedup.swap(); err != nil {
		s.log.Warn("dedup filter rebuild failed; the old filter stays", "err", err)
	}
	b := s.db.NewIndexedBatch()
	defer b.Close()
	stamp := s.stamp.Load()
	var woken []string
	for i := range entries {
		e := &entries[i]
		cmd, derr := DecodeCommand(e.Cmd)
		stamp = max(cmd.Clock, stamp+1)
		var res Result
		if derr != nil {
			res = Result{Stamp: stamp, Aborted: 0, Ops: [][]byte{rejected(derr)}}
		} else {
			s.tx.reset(b, &s.cache, &s.dedup)
			var err error
			if res, err = s.applyCommand(&s.tx, cmd, e.Index, stamp); err != nil {
				s.cache.clear()
				return nil, err
			}
			if res.Applied() {
				if err := s.tx.flush(); err != nil {
					s.cache.clear()
					return nil, err
				}
				woken = append(woken, s.tx.notify...)
			}
		}
		e.Result = sm.Result{Value: e.Index, Data: AppendResult(nil, &res)}
	}
	last := entries[len(entries)-1].Index
	// The records' bytes reach the segment before the pointers the
	// commit makes visible.
	if err := s.segs.write(); err != nil {
		s.cache.clear()
		return nil, err
	}
	if err := b.Set(segKey, segValue(s.segs.position()), nil); err != nil {
		s.cache.clear()
		return nil, fmt.Errorf("%w: %w", ErrStorage, err)
	}
	if err := b.Set(metaKey, metaValue(last, stamp), nil); err != nil {
		s.cache.clear()
		return nil, fmt.Errorf("%w: %w", ErrStorage, err)
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		s.cache.clear()
		return nil, fmt.Errorf("%w: commit: %w", ErrStorage, err)
	}
	s.applied.Store(last)
	s.stamp.Store(stamp)
	s.dedup.full(s.db)
	if slices.Contains(woken, diskWatchKey) {
		if err := s.loadDisk(s.db); err != nil {
			return nil, err
		}
	}
	s.watch.wake(append(woken, appliedKey))
	return entries, nil
}

// Lookup runs a read against the applied state: q is a func(*View) (any,
// error), or a dryRun.
func (s *stateMachine) Lookup(q any) (any, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil {
		return nil, ErrClosed
	}
	if e := s.failed.Load(); e != nil {
		return nil, e // never serve a store that failed a check
	}
	snap := s.db.NewSnapshot()
	defer snap.Close()
	_, stamp, err := readMeta(snap)
	if err != nil {
		return nil, s.finding(err)
	}
	var out any
	switch fn := q.(type) {
	case func(*View) (any, error):
		out, err = fn(&View{src: pebbleSource{snap}, stamp: stamp, segs: s.segs})
	case dryRun:
		// Stamped as an entry proposed now would be: the proposer's clock,
		// and at least one past the last entry applied.
		tx := &Txn{base: snap, appliers: s.appliers, segs: s.segs}
		out, err = fn.fn(tx, ApplyInfo{Shard: s.shardID, Index: s.applied.Load() + 1, Stamp: max(fn.clock, stamp+1)})
	default:
		return nil, fmt.Errorf("raftlog: lookup of %T", q)
	}
	if err != nil {
		return nil, s.finding(err)
	}
	return out, nil
}

// dryRun is a Lookup that runs an applier's logic through a Txn whose
// writes are dropped, stamped as an entry proposed at clock would be.
type dryRun struct {
	fn    func(tx *Txn, at ApplyInfo) (any, error)
	clock int64
}

// Sync makes everything applied so far durable: dragonboat calls it before
// it drops the raft log a snapshot covers. The segments first, then the
// memtable (flushBegin syncs the segments again: cheap, nothing is new);
// then the segments no live record points into are removed.
func (s *stateMachine) Sync() error {
	if err := s.segs.sync(); err != nil {
		return err
	}
	if err := s.db.Flush(); err != nil {
		return fmt.Errorf("%w: sync: %w", ErrStorage, err)
	}
	return s.collect()
}

// PrepareSnapshot pins the state a snapshot will stream.
func (s *stateMachine) PrepareSnapshot() (any, error) {
	s.saving.Add(1)
	return s.db.NewSnapshot(), nil
}

// snapshotMagic starts every snapshot stream; the version after it only grows.
const snapshotMagic = "queen-raftlog-snapshot\x00\x01"

// SaveSnapshot streams every key and value of the pinned state:
// magic | (uvarint key length | key | uvarint value length | value)* | uvarint 0.
func (s *stateMachine) SaveSnapshot(ctx any, w io.Writer, stop <-chan struct{}) error {
	snap := ctx.(*pebble.Snapshot)
	defer s.saving.Add(-1)
	defer snap.Close()
	if _, err := io.WriteString(w, snapshotMagic); err != nil {
		return err
	}
	it, err := snap.NewIter(nil)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	defer it.Close()
	buf := make([]byte, 0, 64<<10)
	for it.First(); it.Valid(); it.Next() {
		k, v := it.Key(), it.Value()
		if bytes.Equal(k, segKey) {
			continue // node-local: where this node keeps its records
		}
		if storefmt.IsRecordKey(k) && len(v) > 0 && v[0] == storefmt.RecordInSegment {
			// The stream carries the record itself, as a store without
			// segments holds it: snapshots are the logical state.
			p, _, _, err := storefmt.DecodePtr(v)
			if err == nil {
				v, err = s.segs.read(p)
			}
			if err != nil {
				return err
			}
		}
		buf = binary.AppendUvarint(buf, uint64(len(k)))
		buf = append(buf, k...)
		buf = binary.AppendUvarint(buf, uint64(len(v)))
		buf = append(buf, v...)
		if len(buf) >= 64<<10 {
			select {
			case <-stop:
				return sm.ErrSnapshotStopped
			default:
			}
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	_, err = w.Write(binary.AppendUvarint(buf, 0))
	return err
}

// RecoverFromSnapshot replaces the whole state with a snapshot's, in one
// synced batch: a crash midway leaves the old state, never a mix.
func (s *stateMachine) RecoverFromSnapshot(r io.Reader, stop <-chan struct{}) error {
	br := newByteReader(r)
	magic := make([]byte, len(snapshotMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != snapshotMagic {
		return fmt.Errorf("%w: not a raftlog snapshot", ErrCorruptEntry)
	}
	s.dedup.stop() // its snapshot is of the state about to go
	b := s.db.NewBatch()
	defer b.Close()
	if err := b.DeleteRange(nil, keyspaceEnd, nil); err != nil {
		return err
	}
	for n := 0; ; n++ {
		if n%4096 == 0 {
			select {
			case <-stop:
				return sm.ErrSnapshotStopped
			default:
			}
		}
		k, err := br.chunk()
		if err != nil {
			return err
		}
		if len(k) == 0 {
			break // the end mark
		}
		v, err := br.chunk()
		if err != nil {
			return err
		}
		if storefmt.IsRecordKey(k) && len(v) > 0 && v[0] == storefmt.RecordInSegment {
			// A pointer means nothing off the node that wrote it: a
			// snapshot carries records.
			return fmt.Errorf("%w: the snapshot holds a record pointer, not a record", ErrCorruptEntry)
		}
		if storefmt.IsRecordKey(k) && len(v) > 0 {
			// A record goes to the segments, its pointer to the store.
			ptr, err := s.segs.appendRecord(v)
			if err != nil {
				return err
			}
			v = ptr
		}
		if err := b.Set(k, v, nil); err != nil {
			return err
		}
	}
	if err := b.Set(segKey, segValue(s.segs.position()), nil); err != nil {
		return err
	}
	s.cache.clear()
	// The segments, then the batch, then a flush: durable in that order,
	// and a crash before the flush leaves the old state (Open cuts the
	// segments back to it).
	if err := s.segs.write(); err != nil {
		return err
	}
	if err := s.segs.sync(); err != nil {
		return err
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	if err := s.db.Flush(); err != nil {
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	if err := upgradeStore(s.db, s.segs); err != nil {
		return err
	}
	if err := s.upgradeFamilies(); err != nil {
		return err
	}
	if err := s.db.Flush(); err != nil { // the upgrades' writes: there is no WAL
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	s.dedup.rebuild(s.db)
	applied, stamp, err := readMeta(s.db)
	if err == nil {
		err = s.loadDisk(s.db)
	}
	if err != nil {
		return err
	}
	s.applied.Store(applied)
	s.stamp.Store(stamp)
	s.watch.wakeAll()
	return nil
}

// Close closes the store, durable as Sync leaves it (a clean stop
// replays nothing). Lookups after it answer ErrClosed.
func (s *stateMachine) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil
	}
	s.dedup.stop()
	err := s.segs.sync()
	if err == nil {
		err = s.db.Flush()
	}
	err = errors.Join(err, s.db.Close())
	s.db = nil
	s.hookSegs.Store(nil)
	if s.segs != nil {
		err = errors.Join(err, s.segs.close())
	}
	return err
}

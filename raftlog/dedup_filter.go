package raftlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/bits-and-blooms/bloom/v3"
	"github.com/cockroachdb/pebble/v2"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
)

// dedupFilter answers "not seen" for dedup keys from memory, so that a
// push of a new transactionId reads nothing from Pebble: a Bloom filter
// over the dedup ('D') keys of the state. A negative answer is exact (the
// key is not in the store, nor in the Update's batch); a positive one is
// checked by the read a push did before the filter existed. The filter
// decides only whether to read, never what apply answers or writes, so it
// cannot break determinism: a node with no filter, or one rebuilt at other
// times, applies the same entries to the same bytes.
//
// It is the Update goroutine's alone (Open and RecoverFromSnapshot, which
// dragonboat never runs beside Update, start its builds too); Lookup never
// reads it. A build, on open, after a snapshot recovery and when the
// filter filled up, runs on its own goroutine from a Pebble snapshot, and
// the next Update swaps the result in, with the keys flushed meanwhile:
// apply never waits for a scan. Until the first build is in, every lookup
// reads, as before the filter.
//
// INVARIANT: when f is set, every dedup key that the state the next Update
// starts from holds (Pebble and the current batch) was added to f: it was
// in the snapshot f was built from, or Txn.flush added it since. Keys
// deleted since (dedup sweeps, trims, a queue's deletion) stay in f until
// the next rebuild: a positive answer for them is a read that finds nothing.
type dedupFilter struct {
	// off keeps every lookup a read (a benchmark's baseline); f is nil.
	off bool
	// minKeys is the least capacity of a filter (defaultFilterKeys).
	minKeys uint64
	f       *bloom.BloomFilter
	// added counts the keys added to f, those it was built from included;
	// past capacity, a rebuild starts. inserts counts every key flushed.
	added, capacity, inserts uint64

	// build is the rebuild in flight, or nil. pending holds the keys
	// flushed since its snapshot (uvarint length, key): the swap adds them.
	build   *filterBuild
	pending []byte
	// retryAt holds back a rebuild after one failed, until inserts reaches it.
	retryAt uint64
	// gate, when a test sets it, holds every rebuild until it is closed.
	gate chan struct{}

	stats *dedupCounters
}

// The filter's sizing: it holds defaultFilterKeys at the least, and twice
// the live keys it was built from, at a false-positive rate of filterFP
// while it holds no more than that (about 1.2 bytes a key: 1.2 MiB at the
// least, 2.4 bytes per live dedup key beyond). Sized at twice the live
// keys, a rebuild comes after as many insertions as it scanned: two keys
// read (a count, then the hashing pass) per key inserted, on another
// goroutine.
const (
	defaultFilterKeys = 1 << 20
	filterFP          = 0.01
)

// dedupCounters count what the filter saved; any goroutine reads them.
type dedupCounters struct {
	avoided, read, missed, builds atomic.Uint64
	capacity                      atomic.Uint64
}

// DedupStats says what the in-memory dedup filter of a shard's state
// machine did since the node opened its store.
type DedupStats struct {
	// Avoided counts dedup lookups the filter answered "not seen" without
	// reading the store; Read the lookups that read it (the filter could
	// not rule the key out), and Missed those of them that found nothing
	// (false positives, and keys swept since the last rebuild).
	Avoided, Read, Missed uint64
	// Builds counts the filter's builds: on open, after a snapshot
	// recovery, and each time its insertions passed Capacity.
	Builds uint64
	// Capacity is the number of keys the current filter is sized for.
	Capacity uint64
}

// DedupStats returns the counters of the shard's dedup filter on this
// node (zero before the shard opened its store).
func (s *Shard) DedupStats() DedupStats {
	m := s.sm.Load()
	if m == nil {
		return DedupStats{}
	}
	return m.dedupStats.load()
}

// load reads the counters.
func (c *dedupCounters) load() DedupStats {
	return DedupStats{Avoided: c.avoided.Load(), Read: c.read.Load(), Missed: c.missed.Load(),
		Builds: c.builds.Load(), Capacity: c.capacity.Load()}
}

// filterBuild is a rebuild running on its own goroutine.
type filterBuild struct {
	stop chan struct{}
	done chan struct{} // closed when f, n and err are set
	f    *bloom.BloomFilter
	n    uint64 // keys it was built from
	// capacity is the keys it is sized for.
	capacity uint64
	err      error
}

// GetDedup is Get for a dedup key (a key of storefmt.PrefixDedup, 'D',
// which the filter holds): when the key is not one of the entry's own
// writes and the filter rules it out, it answers "none" without reading
// the Update's batch or the store. A dry run's Txn has no filter. The
// queue log's push looks its transaction ids up with it.
func (t *Txn) GetDedup(key []byte) (val []byte, ok bool, err error) {
	if d := t.dedup; d != nil {
		if _, own := t.index[string(key)]; !own {
			if !d.mayHold(key) {
				d.stats.avoided.Add(1)
				return nil, false, nil
			}
			d.stats.read.Add(1)
			if val, ok, err = t.Get(key); err == nil && !ok {
				d.stats.missed.Add(1)
			}
			return val, ok, err
		}
	}
	return t.Get(key)
}

// mayHold reports whether key may be a dedup key of the state: false only
// when it is certainly not. Without a filter (one is being built) every
// key may be.
func (d *dedupFilter) mayHold(key []byte) bool { return d.f == nil || d.f.Test(key) }

// add records a dedup key written to the Update's batch: into the filter,
// and for the build in flight, which did not see it.
func (d *dedupFilter) add(key []byte) {
	d.inserts++
	if d.f != nil {
		d.f.Add(key)
		d.added++
	}
	if d.build != nil {
		d.pending = binary.AppendUvarint(d.pending, uint64(len(key)))
		d.pending = append(d.pending, key...)
	}
}

// rebuild drops the filter and starts building it anew from db's dedup
// keys; until the build is swapped in, every lookup reads. Open and
// RecoverFromSnapshot call it once the store holds its new state; it
// stops a build in flight first.
func (d *dedupFilter) rebuild(db *pebble.DB) {
	d.stop()
	d.f, d.added, d.capacity, d.retryAt = nil, 0, 0, 0
	d.stats.capacity.Store(0)
	if !d.off {
		d.start(db)
	}
}

// full starts a rebuild when the filter holds more keys than it was sized
// for and none is in flight. It runs after an Update's batch is committed.
func (d *dedupFilter) full(db *pebble.DB) {
	if d.off || d.build != nil || d.inserts < d.retryAt || (d.f != nil && d.added <= d.capacity) {
		return
	}
	d.start(db)
}

// start builds a filter on its own goroutine from a snapshot of db, which
// holds every key flushed so far: the keys flushed after it go to pending.
func (d *dedupFilter) start(db *pebble.DB) {
	b := &filterBuild{stop: make(chan struct{}), done: make(chan struct{})}
	snap, minKeys, gate := db.NewSnapshot(), d.minKeys, d.gate
	go func() {
		defer close(b.done)
		defer snap.Close()
		if gate != nil {
			select {
			case <-gate:
			case <-b.stop:
				b.err = errFilterStopped
				return
			}
		}
		b.f, b.n, b.capacity, b.err = buildFilter(snap, minKeys, b.stop)
	}()
	d.build = b
}

// swap installs a finished build, with the keys flushed since its
// snapshot; it runs as an Update starts. It returns a build's error, after
// which the old filter (or none) stays: still exact, only fuller, and a
// new build waits for as many insertions as the capacity.
func (d *dedupFilter) swap() error {
	b := d.build
	if b == nil {
		return nil
	}
	select {
	case <-b.done:
	default:
		return nil
	}
	pending := d.pending
	d.build, d.pending = nil, nil
	if b.err != nil {
		d.retryAt = d.inserts + max(d.capacity, d.minKeys)
		return b.err
	}
	d.f, d.added, d.capacity, d.retryAt = b.f, b.n, b.capacity, 0
	for len(pending) > 0 {
		n, w := binary.Uvarint(pending)
		d.f.Add(pending[w : w+int(n)])
		pending = pending[w+int(n):]
		d.added++
	}
	d.stats.builds.Add(1)
	d.stats.capacity.Store(d.capacity)
	return nil
}

// stop ends a build in flight and waits for it; its result is dropped.
func (d *dedupFilter) stop() {
	if b := d.build; b != nil {
		close(b.stop)
		<-b.done
		d.build, d.pending = nil, nil
	}
}

// errFilterStopped ends a rebuild that was stopped.
var errFilterStopped = errors.New("raftlog: dedup filter rebuild stopped")

// buildFilter counts the dedup keys of r, then adds them to a filter sized
// for twice as many (minKeys at the least), and returns it, the keys it
// holds and the capacity it is sized for. Two passes over the keys: the
// second is the one that hashes.
func buildFilter(r pebble.Reader, minKeys uint64, stop <-chan struct{}) (f *bloom.BloomFilter, n, capacity uint64, err error) {
	var live uint64
	if err := eachDedupKey(r, stop, func([]byte) { live++ }); err != nil {
		return nil, 0, 0, err
	}
	capacity = max(minKeys, 2*live)
	f = bloom.NewWithEstimates(uint(capacity), filterFP)
	if err := eachDedupKey(r, stop, func(k []byte) { f.Add(k); n++ }); err != nil {
		return nil, 0, 0, err
	}
	return f, n, capacity, nil
}

// eachDedupKey calls fn with each dedup key of r, in key order; a closed
// stop ends it with errFilterStopped.
func eachDedupKey(r pebble.Reader, stop <-chan struct{}, fn func([]byte)) error {
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: []byte{storefmt.PrefixDedup}, UpperBound: []byte{storefmt.PrefixDedup + 1}})
	if err != nil {
		return fmt.Errorf("%w: dedup filter: %w", ErrStorage, err)
	}
	defer it.Close()
	i := 0
	for valid := it.First(); valid; valid = it.Next() {
		if i++; i%4096 == 0 && stop != nil {
			select {
			case <-stop:
				return errFilterStopped
			default:
			}
		}
		fn(it.Key())
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("%w: dedup filter: %w", ErrStorage, err)
	}
	return nil
}

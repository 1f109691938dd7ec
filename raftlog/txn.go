package raftlog

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/cockroachdb/pebble/v2"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
)

// ErrStorage is wrapped by errors of the state machine's store. An applier
// that meets one returns it: apply stops and the node halts rather than
// diverge from its peers.
var ErrStorage = storefmt.ErrStorage

// Txn is an entry's view of the state while it applies: reads see the
// state after the entries before it and the entry's own writes, and the
// writes reach the store only if every op of the entry succeeds.
//
// A Txn is used by one goroutine, for one entry; appliers never keep it.
type Txn struct {
	base  pebble.Reader // what the entry reads: the Update's indexed batch, or a snapshot (a dry run)
	batch *pebble.Batch // the Update's batch, where flush writes; nil in a dry run
	// segs holds the records: flush appends each record the entry wrote
	// and puts a pointer to it in the batch in its place.
	segs  *segments
	cache *metaCache   // the state machine's, written through by flush
	dedup *dedupFilter // the state machine's, told of every dedup key flush writes; nil in a dry run
	// INVARIANT: index[k] is the position in writes of the last write to k.
	writes []write
	index  map[string]int
	ranges []keyRange // DeleteRange calls, in order
	notify []string   // keys whose watchers wake once the entry is stored
	// appliers are the shard's, for Apply: looked up by kind, never iterated.
	appliers map[OpKind]Applier
	nested   int // the ops Apply applied so far in this entry
}

type write struct {
	key, val []byte
	del      bool
}

// keyRange is a DeleteRange call; mark is how many writes came before it,
// the writes it hides.
type keyRange struct {
	start, end []byte
	mark       int
}

func (t *Txn) reset(base *pebble.Batch, cache *metaCache, dedup *dedupFilter) {
	t.base, t.batch, t.cache, t.dedup = base, base, cache, dedup
	t.writes = t.writes[:0]
	clear(t.index)
	t.ranges = t.ranges[:0]
	t.notify = t.notify[:0]
	t.nested = 0
}

func (t *Txn) deletedByRange(key []byte, after int) bool {
	for _, r := range t.ranges[after:] {
		if bytes.Compare(key, r.start) >= 0 && bytes.Compare(key, r.end) < 0 {
			return true
		}
	}
	return false
}

// Get returns the value of key, or ok false when it has none. The value is
// the caller's to keep.
func (t *Txn) Get(key []byte) (val []byte, ok bool, err error) {
	if i, hit := t.index[string(key)]; hit {
		w := t.writes[i]
		if w.del || t.deletedByRange(key, t.rangesAfter(i)) {
			return nil, false, nil
		}
		return slices.Clone(w.val), true, nil
	}
	if t.deletedByRange(key, 0) {
		return nil, false, nil
	}
	useCache := t.cache != nil && cacheable(key)
	if useCache {
		if v, found, hit := t.cache.get(key); hit {
			return slices.Clone(v), found, nil
		}
	}
	v, closer, err := t.base.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		if useCache {
			t.cache.put(key, nil)
		}
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("%w: get: %w", ErrStorage, err)
	}
	v = slices.Clone(v)
	if useCache {
		t.cache.put(key, slices.Clone(v))
	}
	return v, true, closer.Close()
}

// rangesAfter returns how many DeleteRange calls came before write i: only
// the later ones hide it.
func (t *Txn) rangesAfter(i int) int {
	for n, r := range t.ranges {
		if r.mark > i {
			return n
		}
	}
	return len(t.ranges)
}

// Set writes key = val. The Txn keeps val: the caller must not change it.
func (t *Txn) Set(key, val []byte) {
	t.put(write{key: slices.Clone(key), val: val})
}

// Delete removes key.
func (t *Txn) Delete(key []byte) {
	t.put(write{key: slices.Clone(key), del: true})
}

func (t *Txn) put(w write) {
	if t.index == nil {
		t.index = map[string]int{}
	}
	t.index[string(w.key)] = len(t.writes)
	t.writes = append(t.writes, w)
}

// DeleteRange removes every key in [start, end).
func (t *Txn) DeleteRange(start, end []byte) {
	t.ranges = append(t.ranges, keyRange{start: slices.Clone(start), end: slices.Clone(end), mark: len(t.writes)})
}

// View reads the entry's state as Get and Scan see it (this entry's own
// writes included), stamped at the entry's stamp: for appliers that read
// through View's readers (the queue log's, package queuelog, which
// consumer groups read inside their apply). Valid only during the Apply
// it came from.
func (t *Txn) View(at ApplyInfo) *View { return &View{src: t, stamp: at.Stamp, segs: t.segs} }

// Notify wakes the watchers of key (Shard.Watch) once the entry is stored.
func (t *Txn) Notify(key string) { t.notify = append(t.notify, key) }

// Scan calls fn for each key in [lower, upper) in key order, with the
// state as Get sees it, until fn returns false. fn must not keep key or val.
func (t *Txn) Scan(lower, upper []byte, fn func(key, val []byte) bool) error {
	var own []int // positions of this entry's latest writes in range
	for k, i := range t.index {
		if bytes.Compare([]byte(k), lower) >= 0 && (upper == nil || bytes.Compare([]byte(k), upper) < 0) {
			own = append(own, i)
		}
	}
	slices.SortFunc(own, func(a, b int) int { return bytes.Compare(t.writes[a].key, t.writes[b].key) })
	it, err := t.base.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return fmt.Errorf("%w: scan: %w", ErrStorage, err)
	}
	defer it.Close()
	it.First()
	for {
		var key, val []byte
		switch {
		case len(own) > 0 && (!it.Valid() || bytes.Compare(t.writes[own[0]].key, it.Key()) <= 0):
			w := t.writes[own[0]]
			if it.Valid() && bytes.Equal(w.key, it.Key()) {
				it.Next()
			}
			hidden := w.del || t.deletedByRange(w.key, t.rangesAfter(own[0]))
			own = own[1:]
			if hidden {
				continue
			}
			key, val = w.key, w.val
		case it.Valid():
			key, val = it.Key(), it.Value()
			if t.deletedByRange(key, 0) {
				it.Next()
				continue
			}
			// key and val are the iterator's only until it moves: fn first.
			if !fn(key, val) {
				return nil
			}
			it.Next()
			continue
		default:
			if err := it.Error(); err != nil {
				return fmt.Errorf("%w: scan: %w", ErrStorage, err)
			}
			return nil
		}
		if !fn(key, val) {
			return nil
		}
	}
}

// Apply applies op through this entry as part of the op applying now, with
// op's own applier: a family that acts through another (a timer's fire is a
// push) calls it from its Apply. applied is false when op's applier refused
// or aborted it: then every write op made is undone, the rest of the entry
// stands, and answer is what the applier answered (its Abort answer, or the
// refusal's text that Rejected reads). err is a storage error only, which
// the caller returns. op sees at with a Nested number of its own.
func (t *Txn) Apply(at ApplyInfo, op Op) (answer []byte, applied bool, err error) {
	ap, ok := t.appliers[op.Kind]
	if !ok {
		return rejected(fmt.Errorf("raftlog: no applier for op kind %d", op.Kind)), false, nil
	}
	t.nested++
	at.Nested = t.nested
	wmark, rmark, nmark := len(t.writes), len(t.ranges), len(t.notify)
	answer, err = ap.Apply(t, at, op.Data)
	var abort *abortError
	switch {
	case err == nil:
		return answer, true, nil
	case errors.Is(err, ErrStorage):
		return nil, false, err
	case errors.As(err, &abort):
		answer = abort.answer
	default:
		answer = rejected(err)
	}
	t.rollback(wmark, rmark, nmark)
	return answer, false, nil
}

// rollback undoes the writes, range deletes and notifications made after
// the marks.
func (t *Txn) rollback(wmark, rmark, nmark int) {
	t.writes, t.ranges, t.notify = t.writes[:wmark], t.ranges[:rmark], t.notify[:nmark]
	clear(t.index)
	for i, w := range t.writes {
		t.index[string(w.key)] = i
	}
}

// Writes reports how many writes (sets, deletes, range deletes) the entry
// has made so far; a dry run that made none changed nothing.
func (t *Txn) Writes() int { return len(t.writes) + len(t.ranges) }

// flush moves the entry's writes into the Update's batch, in the order they
// were made, so the batch's end state is the entry's.
func (t *Txn) flush() error {
	if t.batch == nil {
		return errors.New("raftlog: a dry run's writes go nowhere")
	}
	ri := 0
	for i, w := range t.writes {
		for ri < len(t.ranges) && t.ranges[ri].mark <= i {
			if err := t.flushRange(t.ranges[ri]); err != nil {
				return err
			}
			ri++
		}
		var err error
		switch {
		case w.del:
			err = t.batch.Delete(w.key, nil)
		case t.segs != nil && storefmt.IsRecordKey(w.key) && len(w.val) > 0 && w.val[0] != storefmt.RecordInSegment:
			if t.index[string(w.key)] != i {
				continue // written again later in the entry: only the last goes to a segment
			}
			err = t.flushRecord(w.key, w.val)
		default:
			err = t.batch.Set(w.key, w.val, nil)
		}
		if t.dedup != nil && !w.del && len(w.key) > 0 && w.key[0] == storefmt.PrefixDedup {
			t.dedup.add(w.key)
		}
		if t.cache != nil && cacheable(w.key) {
			if w.del {
				t.cache.put(w.key, nil)
			} else {
				t.cache.put(w.key, slices.Clone(w.val))
			}
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrStorage, err)
		}
	}
	for ; ri < len(t.ranges); ri++ {
		if err := t.flushRange(t.ranges[ri]); err != nil {
			return err
		}
	}
	return nil
}

// flushRecord appends a record the entry wrote to the segments and sets
// its key to the pointer (record_ptr.go).
func (t *Txn) flushRecord(key, rec []byte) error {
	ptr, err := t.segs.appendRecord(rec)
	if err != nil {
		return err
	}
	return t.batch.Set(key, ptr, nil)
}

func (t *Txn) flushRange(r keyRange) error {
	if err := t.batch.DeleteRange(r.start, r.end, nil); err != nil {
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	// A range over the cached metadata ('M', 'P' and 'Q' keys, which lie
	// in ['M', 'Q'+1)) empties the cache.
	if t.cache != nil && bytes.Compare(r.start, []byte{storefmt.PrefixQueue + 1}) < 0 &&
		(r.end == nil || bytes.Compare(r.end, []byte{storefmt.PrefixMeta}) > 0) {
		t.cache.clear()
	}
	return nil
}

package kvstore

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"

	"github.com/queen-mq/queen-go/contract"
)

// state is what a call reads: the entry's Txn while it applies (reads see
// the call's own earlier writes), or a View for a read-only call. Both
// scan in key byte order.
type state interface {
	Get(key []byte) (val []byte, ok bool, err error)
	Scan(lower, upper []byte, fn func(key, val []byte) bool) error
}

var (
	_ state = (*raftlog.Txn)(nil)
	_ state = (*raftlog.View)(nil)
)

// evaluator runs the ops of one call in order. It is deterministic: what
// it writes and answers follows from the call, the stamp and the state.
type evaluator struct {
	st     state
	tx     *raftlog.Txn // nil for a read-only call
	tenant string
	stamp  int64 // the broker clock the call is judged on
	budget int   // read bytes left

	// the version counter, read at the first write
	counter       uint64
	counterLoaded bool

	// counts are how the call moved its namespaces' row counts, in the
	// order it first moved them (expiry.go).
	counts     map[string]int64
	countOrder []string
}

// errWriteInRead: a write reached the read path, which prepare prevents.
var errWriteInRead = errors.New("kvstore: a write in a read-only call")

// run evaluates c. When a required op is not applied it stops there and
// answers OK false; the caller then writes nothing.
func (e *evaluator) run(c *call) (*Answer, error) {
	e.tenant, e.budget = c.tenant, ReadBudget
	a := &Answer{OK: true, Results: make([]Result, len(c.ops)), Stamp: e.stamp}
	for i := range c.ops {
		o := &c.ops[i]
		r := &a.Results[i]
		r.Index, r.Op = i, kindNames[o.kind]
		if o.kind.writes() && e.tx == nil {
			return nil, errWriteInRead
		}
		var err error
		switch o.kind {
		case kindGet:
			err = e.get(o, r)
		case kindGetMany:
			err = e.getMany(o, r)
		case kindGetPrefix:
			err = e.getPrefix(o, r)
		case kindPut, kindPutIfAbsent:
			err = e.put(o, r)
		case kindDelete:
			err = e.delete(o, r)
		case kindIncr:
			err = e.incr(o, r)
		case kindCheck:
			_, err = e.check(o, r)
		default:
			err = fmt.Errorf("%w: op kind %d", ErrCorrupt, o.kind)
		}
		if err != nil {
			return nil, err
		}
		if o.required && (o.kind.writes() || o.kind == kindCheck) && !r.Applied {
			return &Answer{FailedIndex: i, KVReason: r.Reason,
				Version: r.Version, Value: r.Value, Stamp: e.stamp}, nil
		}
	}
	if e.counterLoaded && e.tx != nil {
		e.tx.Set(counterKey, binary.BigEndian.AppendUint64(nil, e.counter))
	}
	if e.tx != nil {
		if err := e.flushCounts(); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// load reads the row of (ns, key); ok is false when there is none or it
// has expired at the call's stamp.
func (e *evaluator) load(ns, key string) (r row, ok bool, err error) {
	v, found, err := e.st.Get(rowKey(e.tenant, ns, key))
	if err != nil || !found {
		return row{}, false, err
	}
	if r, err = decodeRow(v); err != nil {
		return row{}, false, fmt.Errorf("%w: %s/%q: %w", raftlog.ErrStorage, ns, key, err)
	}
	return r, r.live(e.stamp), nil
}

// nextVersion takes the next value of the shard-wide version counter.
// INVARIANT: versions only grow, shard-wide, so a key's versions are
// strictly increasing whatever happened to it in between (delete, expiry,
// restart, a new leader: the counter is replicated state).
func (e *evaluator) nextVersion() (uint64, error) {
	if !e.counterLoaded {
		v, ok, err := e.st.Get(counterKey)
		switch {
		case err != nil:
			return 0, err
		case ok && len(v) != 8:
			return 0, fmt.Errorf("%w: version counter of %d bytes", raftlog.ErrStorage, len(v))
		case ok:
			e.counter = binary.BigEndian.Uint64(v)
		}
		e.counterLoaded = true
	}
	e.counter++
	return e.counter, nil
}

// store writes a new version of (ns, key) and fills r with it.
func (e *evaluator) store(ns, key string, value []byte, expiresAt int64, r *Result) error {
	v, err := e.nextVersion()
	if err != nil {
		return err
	}
	w := row{version: v, expiresAt: expiresAt, updatedAt: e.stamp, value: value}
	prev, err := e.stored(ns, key)
	if err != nil {
		return err
	}
	e.rowChanged(ns, key, prev, &w)
	e.tx.Set(rowKey(e.tenant, ns, key), w.encode())
	r.Applied, r.Value, r.Version = true, value, v
	return nil
}

// expiry returns the expiresAt of a row written now with ttl seconds (0:
// never), saturating rather than overflowing.
func (e *evaluator) expiry(ttl int64) int64 {
	if ttl == 0 {
		return 0
	}
	return contract.AddSat(e.stamp, contract.Micros(ttl))
}

// lost fills r for a write or check that was not applied: the reason and
// the current row (nil and 0 when there is none).
func lost(r *Result, reason string, cur row, live bool) {
	r.Applied, r.Reason = false, reason
	if live {
		r.Value, r.Version = cur.value, cur.version
	}
}

// check judges o's expect against the current row and fills r; it
// reports whether the expectation held (true when o has none).
func (e *evaluator) check(o *op, r *Result) (bool, error) {
	r.Key = o.key
	cur, live, err := e.load(o.ns, o.key)
	if err != nil {
		return false, err
	}
	switch {
	case !o.hasExpect:
	case o.expect == 0 && live:
		lost(r, ReasonExists, cur, live)
		return false, nil
	case o.expect > 0 && !live:
		lost(r, ReasonAbsent, cur, live)
		return false, nil
	case o.expect > 0 && cur.version != o.expect:
		lost(r, ReasonVersion, cur, live)
		return false, nil
	}
	r.Applied = true
	if live {
		r.Value, r.Version = cur.value, cur.version
	}
	return true, nil
}

func (e *evaluator) put(o *op, r *Result) error {
	if ok, err := e.check(o, r); !ok || err != nil {
		return err
	}
	return e.store(o.ns, o.key, o.value, e.expiry(o.ttl), r)
}

func (e *evaluator) delete(o *op, r *Result) error {
	r.Key = o.key
	v, found, err := e.st.Get(rowKey(e.tenant, o.ns, o.key))
	if err != nil {
		return err
	}
	if found {
		// An expired row answers absent, and goes: the delete is judged
		// the same on every node, so removing it is deterministic too.
		if cur, err := decodeRow(v); err == nil && !cur.live(e.stamp) {
			e.rowChanged(o.ns, o.key, &cur, nil)
			e.tx.Delete(rowKey(e.tenant, o.ns, o.key))
		}
	}
	if ok, err := e.check(o, r); !ok || err != nil {
		return err
	}
	if r.Version == 0 {
		lost(r, ReasonAbsent, row{}, false)
		return nil
	}
	prev, err := e.stored(o.ns, o.key)
	if err != nil {
		return err
	}
	e.rowChanged(o.ns, o.key, prev, nil)
	e.tx.Delete(rowKey(e.tenant, o.ns, o.key))
	r.Value, r.Version = nil, 0
	return nil
}

func (e *evaluator) incr(o *op, r *Result) error {
	r.Key = o.key
	cur, live, err := e.load(o.ns, o.key)
	if err != nil {
		return err
	}
	var curText string
	expiresAt := e.expiry(o.ttl) // TTL only when incr creates the row
	if live {
		curText, expiresAt = string(cur.value), cur.expiresAt
	}
	sum, outcome := addNumbers(curText, o.delta, o.min, o.max)
	switch outcome {
	case incrType:
		lost(r, ReasonType, cur, live)
		return nil
	case incrLimit:
		lost(r, ReasonLimit, cur, live)
		return nil
	}
	return e.store(o.ns, o.key, []byte(sum), expiresAt, r)
}

package kvstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// Expired rows and namespace counts. A row past its TTL reads as absent,
// but it stays in the store until something removes it: a call that
// touches it, or the sweep. So every row with a TTL has an entry in an
// expiry index, ordered by its expiry, and the leader proposes sweeps
// (SweepOp) that delete the rows whose expiry passed, on the broker clock:
// every node deletes the same rows. Each namespace keeps the count of the
// rows it stores; its exact count of live keys (Namespaces) is that count
// less the expired rows the sweep has not reached yet, which the index
// finds without a scan of the namespace.
//
//	'k' 'n' tenant ns                   → rows stored in (tenant, ns) (uvarint)
//	'k' 'x' tenant ns expiresAt(8) key  → (empty): the expiry index
//	'k' 'f'                             → 1 once the store has both (UpgradeStore)

// OpSweep is the op kind of SweepOp.
const OpSweep raftlog.OpKind = 257

// SweepLimit bounds the rows one sweep deletes.
const SweepLimit = 1000

func nsCountKey(tenant, ns string) []byte {
	return wire.AppendString(wire.AppendString([]byte{prefixCounter, 'n'}, tenant), ns)
}

func expiryPrefix(tenant, ns string) []byte {
	return wire.AppendString(wire.AppendString([]byte{prefixCounter, 'x'}, tenant), ns)
}

func expiryKey(tenant, ns string, at int64, key string) []byte {
	return append(binary.BigEndian.AppendUint64(expiryPrefix(tenant, ns), uint64(at)), key...)
}

var upgradedKey = []byte{prefixCounter, 'f'}

// rowChanged keeps the index and the count as a row of (ns, key) goes
// from prev to next (nil: none).
func (e *evaluator) rowChanged(ns, key string, prev, next *row) {
	if prev != nil && prev.expiresAt > 0 && (next == nil || next.expiresAt != prev.expiresAt) {
		e.tx.Delete(expiryKey(e.tenant, ns, prev.expiresAt, key))
	}
	if next != nil && next.expiresAt > 0 && (prev == nil || prev.expiresAt != next.expiresAt) {
		e.tx.Set(expiryKey(e.tenant, ns, next.expiresAt, key), []byte{})
	}
	d := 0
	if prev == nil {
		d++
	}
	if next == nil {
		d--
	}
	if d != 0 {
		if e.counts == nil {
			e.counts = map[string]int64{}
		}
		if _, ok := e.counts[ns]; !ok {
			e.countOrder = append(e.countOrder, ns)
		}
		e.counts[ns] += int64(d)
	}
}

// stored reads the row stored at (ns, key), expired or not.
func (e *evaluator) stored(ns, key string) (*row, error) {
	v, ok, err := e.st.Get(rowKey(e.tenant, ns, key))
	if err != nil || !ok {
		return nil, err
	}
	r, err := decodeRow(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %s/%q: %w", raftlog.ErrStorage, ns, key, err)
	}
	return &r, nil
}

// flushCounts writes the namespaces' counts the call moved, in the order
// it first moved them.
func (e *evaluator) flushCounts() error {
	for _, ns := range e.countOrder {
		k := nsCountKey(e.tenant, ns)
		n, err := readCount(e.st, k)
		if err != nil {
			return err
		}
		if n += e.counts[ns]; n <= 0 {
			e.tx.Delete(k)
			continue
		}
		e.tx.Set(k, binary.AppendUvarint(nil, uint64(n)))
	}
	return nil
}

func readCount(st state, k []byte) (int64, error) {
	v, ok, err := st.Get(k)
	if err != nil || !ok {
		return 0, err
	}
	n, size := binary.Uvarint(v)
	if size != len(v) {
		return 0, fmt.Errorf("%w: namespace count %x", raftlog.ErrStorage, v)
	}
	return int64(n), nil
}

// SweepOp deletes, for one tenant and namespace, the rows whose expiry
// passed at the entry's stamp, at most Limit of them, in expiry order. Its
// answer is how many it deleted (uvarint).
type SweepOp struct {
	Tenant, NS string
	Limit      int
}

const sweepVersion = 1

// Op encodes s as an op of a command.
func (s *SweepOp) Op() raftlog.Op {
	b := []byte{sweepVersion}
	b = wire.AppendString(b, s.Tenant)
	b = wire.AppendString(b, s.NS)
	return raftlog.Op{Kind: OpSweep, Data: binary.AppendUvarint(b, uint64(max(s.Limit, 0)))}
}

func decodeSweepOp(b []byte) (SweepOp, error) {
	var s SweepOp
	if len(b) == 0 || b[0] != sweepVersion {
		return s, fmt.Errorf("%w: sweep op version", ErrCorrupt)
	}
	d := newDecoder(b[1:])
	s.Tenant, s.NS = d.string(), d.string()
	n := d.Uvarint()
	if n > SweepLimit*10 {
		d.Fail("sweep limit")
	}
	s.Limit = int(n)
	if d.Err == nil && len(d.B) > 0 {
		d.Fail("trailing bytes")
	}
	return s, d.Err
}

// sweeper applies SweepOps.
type sweeper struct{}

func (sweeper) Apply(tx *raftlog.Txn, at raftlog.ApplyInfo, data []byte) ([]byte, error) {
	op, err := decodeSweepOp(data)
	if err != nil {
		return nil, err
	}
	prefix := expiryPrefix(op.Tenant, op.NS)
	upper := binary.BigEndian.AppendUint64(bytes.Clone(prefix), uint64(at.Stamp)+1) // expiresAt <= stamp
	var due [][]byte
	err = tx.Scan(prefix, upper, func(k, _ []byte) bool {
		due = append(due, bytes.Clone(k))
		return len(due) < max(op.Limit, 1)
	})
	if err != nil {
		return nil, err
	}
	e := evaluator{st: tx, tx: tx, tenant: op.Tenant, stamp: at.Stamp}
	var deleted uint64
	for _, k := range due {
		rest := k[len(prefix):]
		expiresAt, key := int64(binary.BigEndian.Uint64(rest[:8])), string(rest[8:])
		cur, err := e.stored(op.NS, key)
		if err != nil {
			return nil, err
		}
		tx.Delete(k)
		if cur == nil || cur.expiresAt != expiresAt || cur.live(at.Stamp) {
			continue // a stale entry: the row changed since
		}
		tx.Delete(rowKey(op.Tenant, op.NS, key))
		e.rowChanged(op.NS, key, &row{}, nil) // the index entry is gone already
		deleted++
	}
	if err := e.flushCounts(); err != nil {
		return nil, err
	}
	return binary.AppendUvarint(nil, deleted), nil
}

// UpgradeStore builds the namespace counts and the expiry index of a
// store written before they existed: it counts every row and indexes every
// row with a TTL, once (upgradedKey marks it done).
func (applier) UpgradeStore(tx *raftlog.Txn) error {
	if _, ok, err := tx.Get(upgradedKey); err != nil || ok {
		return err
	}
	counts := map[string]int64{} // count key → rows; never iterated for writes
	var order []string
	var bad error
	err := tx.Scan([]byte{prefixRow}, []byte{prefixRow + 1}, func(k, v []byte) bool {
		d := newDecoder(k[1:])
		tenant, ns := d.string(), d.string()
		if d.Err != nil {
			bad = fmt.Errorf("%w: row key %x", raftlog.ErrStorage, k)
			return false
		}
		r, err := decodeRow(v)
		if err != nil {
			bad = fmt.Errorf("%w: row %x: %w", raftlog.ErrStorage, k, err)
			return false
		}
		ck := string(nsCountKey(tenant, ns))
		if _, ok := counts[ck]; !ok {
			order = append(order, ck)
		}
		counts[ck]++
		if r.expiresAt > 0 {
			tx.Set(expiryKey(tenant, ns, r.expiresAt, string(d.B)), []byte{})
		}
		return true
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return err
	}
	for _, ck := range order {
		tx.Set([]byte(ck), binary.AppendUvarint(nil, uint64(counts[ck])))
	}
	tx.Set(upgradedKey, []byte{1})
	return nil
}

// DueSweeps lists the sweeps due at broker time now: one per tenant and
// namespace whose expiry index holds a row expired by then, in key order.
func DueSweeps(v *raftlog.View, now int64) ([]SweepOp, error) {
	var due []SweepOp
	lower, end := []byte{prefixCounter, 'x'}, []byte{prefixCounter, 'x' + 1}
	for {
		var found []byte
		if err := v.Scan(lower, end, func(k, _ []byte) bool { found = bytes.Clone(k); return false }); err != nil {
			return nil, err
		}
		if found == nil {
			return due, nil
		}
		d := newDecoder(found[2:])
		tenant, ns := d.string(), d.string()
		if d.Err != nil || len(d.B) < 8 {
			return nil, fmt.Errorf("%w: expiry index key %x", raftlog.ErrStorage, found)
		}
		if int64(binary.BigEndian.Uint64(d.B[:8])) <= now {
			due = append(due, SweepOp{Tenant: tenant, NS: ns, Limit: SweepLimit})
		}
		lower = wire.PrefixEnd(expiryPrefix(tenant, ns))
		if lower == nil {
			return due, nil
		}
	}
}

// Sweep proposes a SweepOp and returns how many rows it deleted.
func (s *Store) Sweep(ctx context.Context, op SweepOp) (uint64, error) {
	answer, _, err := s.shard.ProposeOp(ctx, op.Op())
	if err != nil {
		return 0, err
	}
	n, _ := binary.Uvarint(answer)
	return n, nil
}

// NamespaceCount is one namespace of a tenant and how many live keys it
// holds (contract.KVNamespaceCount).
type NamespaceCount = contract.KVNamespaceCount

// Namespaces lists a tenant's namespaces with their exact counts of live
// keys, by name, as a linearizable read: each namespace's stored count
// less its expired rows the sweep has not deleted yet (found through the
// expiry index, not a scan of the namespace).
func (s *Store) Namespaces(ctx context.Context, tenant string) ([]NamespaceCount, error) {
	got, err := s.shard.Read(ctx, func(v *raftlog.View) (any, error) { return namespaces(v, tenant) })
	if err != nil {
		return nil, err
	}
	return got.([]NamespaceCount), nil
}

func namespaces(v *raftlog.View, tenant string) ([]NamespaceCount, error) {
	prefix := wire.AppendString([]byte{prefixCounter, 'n'}, tenant)
	var out []NamespaceCount
	var bad error
	err := v.Scan(prefix, wire.PrefixEnd(prefix), func(k, val []byte) bool {
		d := newDecoder(k[len(prefix):])
		ns := d.string()
		n, size := binary.Uvarint(val)
		if d.Err != nil || size != len(val) {
			bad = fmt.Errorf("%w: namespace count %x", raftlog.ErrStorage, k)
			return false
		}
		out = append(out, NamespaceCount{Namespace: ns, Keys: int64(n)})
		return true
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return nil, err
	}
	for i := range out {
		ep := expiryPrefix(tenant, out[i].Namespace)
		upper := binary.BigEndian.AppendUint64(bytes.Clone(ep), uint64(v.Stamp())+1)
		var expired int64
		if err := v.Scan(ep, upper, func(_, _ []byte) bool { expired++; return true }); err != nil {
			return nil, err
		}
		out[i].Keys = max(out[i].Keys-expired, 0)
	}
	// Keys order names by length first (they are length-prefixed).
	slices.SortFunc(out, func(a, b NamespaceCount) int { return strings.Compare(a.Namespace, b.Namespace) })
	return out, nil
}

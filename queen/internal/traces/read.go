package traces

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// The reads hide an event whose lifetime ended at the view's stamp, as a
// KV row past its TTL reads as absent, whether the sweep deleted it yet or
// not. Each is one prefix scan that stops at its limit.

// resolver names the partitions of a read's events, once per id.
type resolver struct {
	v      *raftlog.View
	tenant string
	seen   map[uint64]partName
}

type partName struct {
	queue, partition string
	known            bool
}

func (r *resolver) fill(e *Event) error {
	got, ok := r.seen[e.PartitionUID]
	if !ok {
		var err error
		if got.queue, got.partition, got.known, err = consume.PartitionOf(r.v, r.tenant, e.PartitionUID); err != nil {
			return err
		}
		if r.seen == nil {
			r.seen = map[uint64]partName{}
		}
		r.seen[e.PartitionUID] = got
	}
	e.Queue, e.Partition, e.Known = got.queue, got.partition, got.known
	return nil
}

// ByMessage reads a message's events (its partition id and
// transactionId), oldest first, at most limit; truncated says more
// follow.
func ByMessage(v *raftlog.View, tenant string, uid uint64, txid string, limit int) (events []Event, truncated bool, err error) {
	p := messagePrefix(tenant, uid, txid)
	r := resolver{v: v, tenant: tenant}
	err = family.Rows(v.Scan, p, wire.PrefixEnd(p), decodeRow, func(e Event) bool {
		if e.ExpiresAt <= v.Stamp() {
			return true
		}
		if len(events) == limit {
			truncated = true
			return false
		}
		events = append(events, e)
		return true
	})
	for i := range events {
		if err == nil {
			err = r.fill(&events[i])
		}
	}
	return events, truncated, err
}

// NameQuery pages one name's events, newest first: those created in
// [From, To) (0: open), after skipping Offset, at most Limit.
type NameQuery struct {
	Name          string
	From, To      int64
	Offset, Limit int
}

// ByName reads a page of a name's events; more says events follow it.
// It reads at most Offset+Limit+1 index entries past the expired ones,
// and the rows of the page alone.
func ByName(v *raftlog.View, tenant string, q NameQuery) (events []Event, more bool, err error) {
	p := namePrefix(tenant, q.Name)
	lower, upper := p, wire.PrefixEnd(p)
	if q.To > 0 { // created < To: ^stamp > ^To
		lower = binary.BigEndian.AppendUint64(bytes.Clone(p), ^uint64(q.To-1))
	}
	if q.From > 0 { // created >= From: ^stamp <= ^From
		upper = wire.PrefixEnd(binary.BigEndian.AppendUint64(bytes.Clone(p), ^uint64(q.From)))
	}
	if bytes.Compare(lower, upper) >= 0 {
		return nil, false, nil
	}
	type ref struct {
		uid  uint64
		txid string
		id   ID
	}
	var refs []ref
	skip := q.Offset
	var derr error
	err = v.Scan(lower, upper, func(k, val []byte) bool {
		uid, expiresAt, txid, ok := parseNameValue(val)
		if !ok || len(k) != len(p)+idBytes {
			derr = fmt.Errorf("%w: traces: name index entry %x", raftlog.ErrStorage, k)
			return false
		}
		if expiresAt <= v.Stamp() {
			return true
		}
		if skip > 0 {
			skip--
			return true
		}
		if len(refs) == q.Limit {
			more = true
			return false
		}
		var id ID
		for i, c := range k[len(p):] {
			id[i] = ^c
		}
		refs = append(refs, ref{uid, txid, id})
		return true
	})
	if err == nil {
		err = derr
	}
	if err != nil {
		return nil, false, err
	}
	r := resolver{v: v, tenant: tenant}
	events = make([]Event, 0, len(refs))
	for _, f := range refs {
		k := rowKey(tenant, f.uid, f.txid, f.id)
		val, ok, err := v.Get(k)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, fmt.Errorf("%w: traces: name %s indexes event %x, which is not stored", raftlog.ErrStorage, contract.Quote(q.Name), f.id)
		}
		e, err := decodeRow(k, val)
		if err != nil {
			return nil, false, err
		}
		events = append(events, e)
	}
	for i := range events {
		if err := r.fill(&events[i]); err != nil {
			return nil, false, err
		}
	}
	return events, more, nil
}

// NameCount is one trace name of a tenant: how many events it holds, and
// when the newest one was recorded.
type NameCount struct {
	Name  string
	Count int64
	Last  int64
}

// Names pages a tenant's trace names in byte order: those that start
// with search, after the name after (exclusive; "" from the first), at
// most limit; truncated says more follow. A count includes events whose
// lifetime ended that the sweep has not deleted yet (the leader sweeps
// every retention pass); a name leaves the list with its last event.
func Names(v *raftlog.View, tenant, search, after string, limit int) (names []NameCount, truncated bool, err error) {
	p := countsPrefix(tenant)
	lower := append(bytes.Clone(p), search...)
	if after != "" {
		if a := append(append(bytes.Clone(p), after...), 0); bytes.Compare(a, lower) > 0 {
			lower = a
		}
	}
	end := wire.PrefixEnd(append(bytes.Clone(p), search...))
	return family.Page(v.Scan, lower, end, limit, func(k, val []byte) (NameCount, error) {
		n := string(k[len(p):])
		c, err := decodeCount(n, val)
		return NameCount{Name: n, Count: int64(min(c.n, uint64(contract.MaxSafeInteger))), Last: c.last}, err
	})
}

// NextExpiry returns the earliest expiry of a stored event of the shard
// (ok false: none is stored).
func NextExpiry(v *raftlog.View) (int64, bool, error) {
	var at int64
	var found bool
	err := v.Scan([]byte{prefix, kindExpiry}, []byte{prefix, kindExpiry + 1}, func(k, _ []byte) bool {
		at, _, found = parseExpiry(k)
		return false
	})
	return at, found, err
}

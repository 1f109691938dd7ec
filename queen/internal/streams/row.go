package streams

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// Query is a registered stream query: what its registration said, and
// what its cycles keep count of.
type Query struct {
	// ID names this registration: minted from the tenant, the name and
	// the raft index of the entry that registered (or reset) it, so a
	// reset, or a delete and a new registration, never give an old id
	// back.
	ID           [16]byte
	Name         string
	Source, Sink string
	ConfigHash   string
	// Group is the consumer group of its last acked cycle, at first
	// "streams.<name>" (the SDK's default).
	Group string
	// Created is the stamp of its first registration, Registered of the
	// one that minted ID, Updated of its last change (a cycle).
	Created, Registered, Updated int64
	// Resets counts the registrations that wiped its state.
	Resets uint64
	// Cycles counts the cycles it committed; Rows and Bytes are its state
	// (keys and values, in bytes).
	Cycles      uint64
	Rows, Bytes int64
}

const rowVersion byte = 1

func (q *Query) encode() []byte {
	e := family.Encoder{rowVersion}
	e.Byte(q.ID[:]...)
	e.Str(q.Source, q.Sink, q.ConfigHash, q.Group)
	e.Varint(q.Created, q.Registered, q.Updated)
	e.Uvarint(q.Resets, q.Cycles)
	e.Varint(q.Rows, q.Bytes)
	return e
}

func decodeQuery(name string, b []byte) (Query, error) {
	q, err := family.Decode(b, ErrCorrupt, func(d *family.Decoder) Query {
		d.Version(rowVersion, "query row version")
		q := Query{Name: name, ID: d.ID("query id"), Source: d.Str(), Sink: d.Str(), ConfigHash: d.Str(), Group: d.Str()}
		q.Created, q.Registered, q.Updated = d.Varint(), d.Varint(), d.Varint()
		q.Resets, q.Cycles = d.Uvarint(), d.Uvarint()
		q.Rows, q.Bytes = d.Varint(), d.Varint()
		return q
	})
	if err != nil {
		return Query{}, fmt.Errorf("%w: query %q: %w", raftlog.ErrStorage, name, err)
	}
	return q, nil
}

// mintID derives a registration's id, a UUID (version 8), from the
// tenant, the name and the entry's raft index: the same on every node.
func mintID(tenant, name string, index uint64) [16]byte {
	h := sha256.New()
	h.Write([]byte("queen-stream\x00"))
	h.Write(wire.AppendString(wire.AppendString(nil, tenant), name))
	h.Write(binary.BigEndian.AppendUint64(nil, index))
	var id [16]byte
	copy(id[:], h.Sum(nil))
	id[6] = id[6]&0x0f | 0x80
	id[8] = id[8]&0x3f | 0x80
	return id
}

// DefaultGroup is the consumer group the SDK pops a query's source with
// unless told otherwise.
func DefaultGroup(query string) string { return "streams." + query }

// getFunc is a read of the store that apply (raftlog.Txn) and the routes
// (raftlog.View) share, as they share Scan (family.ScanFunc).
type getFunc func(key []byte) ([]byte, bool, error)

// getQuery reads a query by name; ok false when none is registered.
func getQuery(get getFunc, tenant, name string) (Query, bool, error) {
	b, ok, err := get(queryKey(tenant, name))
	if err != nil || !ok {
		return Query{}, false, err
	}
	q, err := decodeQuery(name, b)
	return q, err == nil, err
}

// queryByID reads the query a registration's id names; ok false when it
// names none (never minted, or retired by a reset or a delete).
func queryByID(get getFunc, tenant string, id [16]byte) (Query, bool, error) {
	n, ok, err := get(idKey(tenant, id))
	if err != nil || !ok {
		return Query{}, false, err
	}
	q, ok, err := getQuery(get, tenant, string(n))
	if err == nil && (!ok || q.ID != id) {
		err = fmt.Errorf("%w: stream id %s names query %q, which does not name it back", raftlog.ErrStorage, idText(id), n)
	}
	return q, err == nil, err
}

// eachQuery calls fn for each query under prefix (one tenant's, or
// every tenant's: {prefixQuery}), by tenant then name, until fn returns
// false.
func eachQuery(scan family.ScanFunc, prefix []byte, fn func(tenant string, q Query) bool) error {
	type tenantQuery struct {
		tenant string
		q      Query
	}
	return family.Rows(scan, prefix, wire.PrefixEnd(prefix), func(k, val []byte) (tenantQuery, error) {
		d := wire.NewDecoder(k[1:], ErrCorrupt)
		tenant, name := string(d.Bytes()), string(d.Bytes())
		if d.Err != nil {
			return tenantQuery{}, fmt.Errorf("%w: query key: %w", raftlog.ErrStorage, d.Err)
		}
		q, err := decodeQuery(name, val)
		return tenantQuery{tenant, q}, err
	}, func(r tenantQuery) bool { return fn(r.tenant, r.q) })
}

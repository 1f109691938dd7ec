package traces

import (
	"fmt"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
)

// Appliers returns the traces family's applier by op kind, to pass to
// raftlog.Host.StartShard beside consume's (whose partition ids the
// events name).
func Appliers() map[raftlog.OpKind]raftlog.Applier { return applier.Appliers(OpTraces) }

// applier applies a record or a sweep, judged on the entry's stamp.
var applier = family.Applier[family.Entry]{Decode: decodeOp, Growing: grows, State: func(e family.Entry) family.Entry { return e }}

// Recorded is what a record did: the event's id, its expiry, and what its
// partition id names (Known false: nothing the tenant's consumers popped;
// the event is stored all the same).
type Recorded struct {
	ID               ID
	ExpiresAt        int64
	Known            bool
	Queue, Partition string
}

// Created is the stamp the event was recorded at.
func (r Recorded) Created() int64 { return r.ID.Stamp() }

// Apply stores the event under its message, indexes it by each of its
// names and by its expiry, and counts it in its names.
func (r *Record) Apply(en family.Entry) ([]byte, error) {
	tx, at := en.Tx, en.At
	id := newID(at.Stamp, at.Op, at.Nested)
	e := Event{Group: r.Group, EventType: r.EventType, Names: r.Names, Data: r.Data,
		ExpiresAt: contract.AddSat(at.Stamp, contract.Micros(r.TTLSeconds))}
	row := rowKey(r.Tenant, r.PartitionUID, r.TransactionID, id)
	tx.Set(row, e.encodeRow())
	tx.Set(expiryKey(e.ExpiresAt, row), nil)
	for _, n := range r.Names {
		tx.Set(nameKey(r.Tenant, n, id), nameValue(r.PartitionUID, e.ExpiresAt, r.TransactionID))
		c, err := loadCount(tx, r.Tenant, n)
		if err != nil {
			return nil, err
		}
		c.n++
		c.last = max(c.last, at.Stamp)
		saveCount(tx, r.Tenant, n, c)
	}
	a := Recorded{ID: id, ExpiresAt: e.ExpiresAt}
	var err error
	a.Queue, a.Partition, a.Known, err = consume.PartitionOf(tx.View(at), r.Tenant, r.PartitionUID)
	if err != nil {
		return nil, err
	}
	return appendRecorded(nil, a), nil
}

// nameCount is a name's count row: the events stored under it (expired
// ones the sweep has not reached yet included) and the stamp of the
// newest one recorded.
type nameCount struct {
	n    uint64
	last int64
}

func loadCount(tx *raftlog.Txn, tenant, traceName string) (nameCount, error) {
	v, ok, err := tx.Get(countKey(tenant, traceName))
	if err != nil || !ok {
		return nameCount{}, err
	}
	return decodeCount(traceName, v)
}

func decodeCount(traceName string, v []byte) (nameCount, error) {
	c, err := family.Decode(v, ErrCorrupt, func(d *family.Decoder) nameCount { return nameCount{n: d.Uvarint(), last: d.Varint()} })
	if err != nil {
		return nameCount{}, fmt.Errorf("%w: traces: count of name %s: %w", raftlog.ErrStorage, contract.Quote(traceName), err)
	}
	return c, nil
}

func saveCount(tx *raftlog.Txn, tenant, traceName string, c nameCount) {
	if c.n == 0 {
		tx.Delete(countKey(tenant, traceName))
		return
	}
	var e family.Encoder
	e.Uvarint(c.n)
	e.Varint(c.last)
	tx.Set(countKey(tenant, traceName), e)
}

// SweepAnswer is what a sweep did: events deleted, and More when it
// stopped at its limit with more expired.
type SweepAnswer struct {
	Deleted int
	More    bool
}

// Apply deletes the events whose expiry is at or before the entry's
// stamp, in expiry order, at most op.Limit: each with its expiry entry,
// its name index entries and its part of its names' counts.
func (op SweepOp) Apply(en family.Entry) ([]byte, error) {
	tx, at := en.Tx, en.At
	var a SweepAnswer
	due, more, err := family.Keys(tx.Scan, []byte{prefix, kindExpiry}, expiredBy(at.Stamp), op.Limit)
	a.More = more
	if err != nil {
		return nil, err
	}
	type counted struct{ tenant, name string }
	var order []counted
	dec := map[counted]uint64{} // looked up only; order says the writes' order
	for _, k := range due {
		_, row, ok := parseExpiry(k)
		if !ok {
			return nil, fmt.Errorf("%w: traces: expiry key %x", raftlog.ErrStorage, k)
		}
		tx.Delete(k)
		v, found, err := tx.Get(row)
		if err != nil {
			return nil, err
		}
		if !found {
			continue // INVARIANT: never written so; the stray entry is repaired
		}
		e, err := decodeRow(row, v)
		if err != nil {
			return nil, err
		}
		tenant, _, _, _, _ := parseRowKey(row[2:])
		tx.Delete(row)
		for _, n := range e.Names {
			tx.Delete(nameKey(tenant, n, e.ID))
			c := counted{tenant, n}
			if _, seen := dec[c]; !seen {
				order = append(order, c)
			}
			dec[c]++
		}
		a.Deleted++
	}
	for _, c := range order {
		n, err := loadCount(tx, c.tenant, c.name)
		if err != nil {
			return nil, err
		}
		n.n -= min(n.n, dec[c])
		saveCount(tx, c.tenant, c.name, n)
	}
	return appendSweep(nil, a), nil
}

func appendRecorded(b []byte, a Recorded) []byte {
	e := family.Encoder(b)
	e.Byte(a.ID[:]...)
	e.Varint(a.ExpiresAt)
	e.Bool(a.Known)
	if a.Known {
		e.Str(a.Queue, a.Partition)
	}
	return e
}

// DecodeRecorded reads the answer of a Record.
func DecodeRecorded(b []byte) (Recorded, error) {
	var a Recorded
	if len(b) < idBytes {
		return a, fmt.Errorf("%w: bad recorded answer", ErrCorrupt)
	}
	copy(a.ID[:], b)
	return family.Decode(b[idBytes:], ErrCorrupt, func(d *family.Decoder) Recorded {
		a.ExpiresAt = d.Varint()
		if a.Known = d.Flag("known"); a.Known {
			a.Queue, a.Partition = d.Str(), d.Str()
		}
		return a
	})
}

func appendSweep(b []byte, a SweepAnswer) []byte {
	e := family.Encoder(b)
	e.Uvarint(uint64(a.Deleted))
	e.Bool(a.More)
	return e
}

// DecodeSweep reads the answer of a SweepOp.
func DecodeSweep(b []byte) (SweepAnswer, error) {
	return family.Decode(b, ErrCorrupt, func(d *family.Decoder) SweepAnswer {
		return SweepAnswer{Deleted: int(d.Uvarint()), More: d.Flag("more")}
	})
}

package streams

import (
	"fmt"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// Appliers returns the streams family's applier by op kind, to pass to
// raftlog.Host.StartShard beside the others' (a cycle's ack is consume's,
// its pushes the queue log's).
func Appliers() map[raftlog.OpKind]raftlog.Applier { return applier.Appliers(OpStreams) }

// applier applies one op, judged on the entry's stamp and index alone.
var applier = family.Applier[*state]{Decode: decodeOp, Growing: grows, State: func(e family.Entry) *state { return &state{e} }}

// state is an op's access to the queries of the shard.
type state struct{ family.Entry }

func (s *state) load(tenant, name string) (Query, bool, error) {
	return getQuery(s.Tx.Get, tenant, name)
}

func (s *state) save(tenant string, q *Query) { s.Tx.Set(queryKey(tenant, q.Name), q.encode()) }

// wipe deletes a query's state rows.
func (s *state) wipe(tenant string, q *Query) {
	p := stateOf(tenant, q.ID)
	s.Tx.DeleteRange(p, wire.PrefixEnd(p))
	q.Rows, q.Bytes = 0, 0
}

// RegisterAnswer is what a registration did: the query as it stands
// after it; Fresh, it was new or its state was wiped; Reset, it wiped
// state of an earlier registration; Mismatch, it was refused (another
// config hash, no reset) and Query is the registration that stands.
type RegisterAnswer struct {
	Query                  Query
	Fresh, Reset, Mismatch bool
}

// Apply registers the query, resets it, or answers the registration that
// stands.
func (op *RegisterOp) Apply(s *state) ([]byte, error) {
	q, found, err := s.load(op.Tenant, op.Name)
	if err != nil {
		return nil, err
	}
	a := RegisterAnswer{}
	switch {
	case !found:
		q = Query{Name: op.Name, Group: DefaultGroup(op.Name), Created: s.At.Stamp}
		a.Fresh = true
	case op.Reset:
		s.wipe(op.Tenant, &q)
		s.Tx.Delete(idKey(op.Tenant, q.ID))
		q.Resets++
		a.Fresh, a.Reset = true, true
	case q.ConfigHash != op.ConfigHash:
		a.Query, a.Mismatch = q, true
		return appendRegister(nil, &a), nil
	}
	if a.Fresh {
		q.ID, q.Registered = mintID(op.Tenant, op.Name, s.At.Index), s.At.Stamp
		s.Tx.Set(idKey(op.Tenant, q.ID), []byte(op.Name))
	}
	if a.Fresh || q.Source != op.Source || q.Sink != op.Sink {
		q.Source, q.Sink, q.ConfigHash, q.Updated = op.Source, op.Sink, op.ConfigHash, s.At.Stamp
		s.save(op.Tenant, &q)
	}
	a.Query = q
	return appendRegister(nil, &a), nil
}

// The reasons a cycle's state part refuses the whole command
// (DecodeCycleRollback).
const (
	// RollbackQuery: the query id names no registration (never, or one
	// a reset or a delete retired).
	RollbackQuery byte = 1
	// RollbackState: a delete names a row that is not there: the cycle
	// was applied already (a retry), or another worker's took the row.
	RollbackState byte = 2
)

func rollback(reason byte, format string, args ...any) error {
	return raftlog.Abort(wire.AppendString([]byte{reason}, fmt.Sprintf(format, args...)))
}

// DecodeCycleRollback reads the answer of a CycleOp that rolled its
// command back: the reason (a Rollback constant) and why.
func DecodeCycleRollback(b []byte) (reason byte, why string, err error) {
	d := family.NewDecoder(b, ErrCorrupt)
	reason, why = d.Byte(), d.Str()
	return reason, why, d.End()
}

// CycleAnswer is what a cycle's state part did: the query's state after
// it.
type CycleAnswer struct {
	Rows, Bytes int64
}

// Apply writes the cycle's state rows, judged against the query's rows.
func (op *CycleOp) Apply(s *state) ([]byte, error) {
	q, ok, err := queryByID(s.Tx.Get, op.Tenant, op.ID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, rollback(RollbackQuery, "query_id %s names no registered query (never registered, or reset or deleted since)", idText(op.ID))
	}
	for i, w := range op.Ops {
		k := stateKey(op.Tenant, q.ID, op.Partition, w.Key)
		old, had, err := s.Tx.Get(k)
		if err != nil {
			return nil, err
		}
		switch w.Kind {
		case StateDelete:
			if !had {
				return nil, rollback(RollbackState, "state_ops[%d]: delete of state row %q of partition %s, which is not there: this cycle's effects are applied already (a retry), or another worker's cycle took the row", i, w.Key, op.Partition)
			}
			s.Tx.Delete(k)
			q.Rows--
			q.Bytes -= int64(len(w.Key) + len(old))
		case StateUpsert:
			s.Tx.Set(k, w.Value)
			if had {
				q.Bytes += int64(len(w.Value) - len(old))
			} else {
				q.Rows++
				q.Bytes += int64(len(w.Key) + len(w.Value))
			}
		}
	}
	if op.Group != "" {
		q.Group = op.Group
	}
	q.Cycles++
	q.Updated = s.At.Stamp
	s.save(op.Tenant, &q)
	var e family.Encoder
	e.Varint(q.Rows, q.Bytes)
	return e, nil
}

// DecodeCycle reads the answer of a CycleOp that applied.
func DecodeCycle(b []byte) (CycleAnswer, error) {
	return family.Decode(b, ErrCorrupt, func(d *family.Decoder) CycleAnswer { return CycleAnswer{Rows: d.Varint(), Bytes: d.Varint()} })
}

// DeleteAnswer is what a DeleteOp deleted.
type DeleteAnswer struct {
	Found bool
	Rows  int64
}

// Apply forgets the query: its registration, its id and its state.
func (op *DeleteOp) Apply(s *state) ([]byte, error) {
	q, found, err := s.load(op.Tenant, op.Name)
	if err != nil || !found {
		return []byte{0}, err
	}
	rows := q.Rows
	s.wipe(op.Tenant, &q)
	s.Tx.Delete(idKey(op.Tenant, q.ID))
	s.Tx.Delete(queryKey(op.Tenant, q.Name))
	e := family.Encoder{1}
	e.Varint(rows)
	return e, nil
}

// DecodeDelete reads the answer of a DeleteOp.
func DecodeDelete(b []byte) (DeleteAnswer, error) {
	return family.Decode(b, ErrCorrupt, func(d *family.Decoder) DeleteAnswer {
		a := DeleteAnswer{Found: d.Byte() == 1}
		if a.Found {
			a.Rows = d.Varint()
		}
		return a
	})
}

// Apply wipes the state of the tenant's queries that read the queue; it
// answers how many queries and rows.
func (op *DropSourceOp) Apply(s *state) ([]byte, error) {
	var hit []Query
	err := eachQuery(s.Tx.Scan, queriesPrefix(op.Tenant), func(_ string, q Query) bool {
		if q.Source == op.Queue {
			hit = append(hit, q)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	var rows int64
	for i := range hit {
		rows += hit[i].Rows
		s.wipe(op.Tenant, &hit[i])
		hit[i].Updated = s.At.Stamp
		s.save(op.Tenant, &hit[i])
	}
	var e family.Encoder
	e.Uvarint(uint64(len(hit)))
	e.Varint(rows)
	return e, nil
}

// DecodeDropSource reads the answer of a DropSourceOp: the queries whose
// state it wiped and the rows they held.
func DecodeDropSource(b []byte) (queries int, rows int64, err error) {
	d := family.NewDecoder(b, ErrCorrupt)
	queries, rows = int(d.Uvarint()), d.Varint()
	return queries, rows, d.End()
}

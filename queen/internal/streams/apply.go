package streams

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// Appliers returns the streams family's applier by op kind, to pass to
// raftlog.Host.StartShard beside the others' (a cycle's ack is consume's,
// its pushes the queue log's).
func Appliers() map[raftlog.OpKind]raftlog.Applier {
	return map[raftlog.OpKind]raftlog.Applier{OpStreams: applier{}}
}

type applier struct{}

// Apply applies one op, judged on the entry's stamp and index alone.
func (applier) Apply(tx *raftlog.Txn, at raftlog.ApplyInfo, data []byte) ([]byte, error) {
	op, err := decodeOp(data)
	if err != nil {
		return nil, err
	}
	s := &state{tx: tx, at: at}
	switch op := op.(type) {
	case *RegisterOp:
		return s.register(op)
	case *CycleOp:
		return s.cycle(op)
	case *DeleteOp:
		return s.delete(op)
	case *DropSourceOp:
		return s.dropSource(op)
	}
	return nil, errors.New("streams: unknown op")
}

type state struct {
	tx *raftlog.Txn
	at raftlog.ApplyInfo
}

func (s *state) load(tenant, name string) (Query, bool, error) {
	return getQuery(s.tx.Get, tenant, name)
}

func (s *state) save(tenant string, q *Query) { s.tx.Set(queryKey(tenant, q.Name), q.encode()) }

// wipe deletes a query's state rows.
func (s *state) wipe(tenant string, q *Query) {
	p := stateOf(tenant, q.ID)
	s.tx.DeleteRange(p, wire.PrefixEnd(p))
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

func (s *state) register(op *RegisterOp) ([]byte, error) {
	q, found, err := s.load(op.Tenant, op.Name)
	if err != nil {
		return nil, err
	}
	a := RegisterAnswer{}
	switch {
	case !found:
		q = Query{Name: op.Name, Group: DefaultGroup(op.Name), Created: s.at.Stamp}
		a.Fresh = true
	case op.Reset:
		s.wipe(op.Tenant, &q)
		s.tx.Delete(idKey(op.Tenant, q.ID))
		q.Resets++
		a.Fresh, a.Reset = true, true
	case q.ConfigHash != op.ConfigHash:
		a.Query, a.Mismatch = q, true
		return appendRegister(nil, &a), nil
	}
	if a.Fresh {
		q.ID, q.Registered = mintID(op.Tenant, op.Name, s.at.Index), s.at.Stamp
		s.tx.Set(idKey(op.Tenant, q.ID), []byte(op.Name))
	}
	if a.Fresh || q.Source != op.Source || q.Sink != op.Sink {
		q.Source, q.Sink, q.ConfigHash, q.Updated = op.Source, op.Sink, op.ConfigHash, s.at.Stamp
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
	d := wire.NewDecoder(b, ErrCorrupt)
	reason, why = d.Byte(), string(d.Bytes())
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	return reason, why, d.Err
}

// CycleAnswer is what a cycle's state part did: the query's state after
// it.
type CycleAnswer struct {
	Rows, Bytes int64
}

func (s *state) cycle(op *CycleOp) ([]byte, error) {
	q, ok, err := queryByID(s.tx.Get, op.Tenant, op.ID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, rollback(RollbackQuery, "query_id %s names no registered query (never registered, or reset or deleted since)", idText(op.ID))
	}
	for i, w := range op.Ops {
		k := stateKey(op.Tenant, q.ID, op.Partition, w.Key)
		old, had, err := s.tx.Get(k)
		if err != nil {
			return nil, err
		}
		switch w.Kind {
		case StateDelete:
			if !had {
				return nil, rollback(RollbackState, "state_ops[%d]: delete of state row %q of partition %s, which is not there: this cycle's effects are applied already (a retry), or another worker's cycle took the row", i, w.Key, op.Partition)
			}
			s.tx.Delete(k)
			q.Rows--
			q.Bytes -= int64(len(w.Key) + len(old))
		case StateUpsert:
			s.tx.Set(k, w.Value)
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
	q.Updated = s.at.Stamp
	s.save(op.Tenant, &q)
	return binary.AppendVarint(binary.AppendVarint(nil, q.Rows), q.Bytes), nil
}

// DecodeCycle reads the answer of a CycleOp that applied.
func DecodeCycle(b []byte) (CycleAnswer, error) {
	d := wire.NewDecoder(b, ErrCorrupt)
	a := CycleAnswer{Rows: d.Varint(), Bytes: d.Varint()}
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	return a, d.Err
}

// DeleteAnswer is what a DeleteOp deleted.
type DeleteAnswer struct {
	Found bool
	Rows  int64
}

func (s *state) delete(op *DeleteOp) ([]byte, error) {
	q, found, err := s.load(op.Tenant, op.Name)
	if err != nil || !found {
		return []byte{0}, err
	}
	rows := q.Rows
	s.wipe(op.Tenant, &q)
	s.tx.Delete(idKey(op.Tenant, q.ID))
	s.tx.Delete(queryKey(op.Tenant, q.Name))
	return binary.AppendVarint([]byte{1}, rows), nil
}

// DecodeDelete reads the answer of a DeleteOp.
func DecodeDelete(b []byte) (DeleteAnswer, error) {
	d := wire.NewDecoder(b, ErrCorrupt)
	a := DeleteAnswer{Found: d.Byte() == 1}
	if a.Found {
		a.Rows = d.Varint()
	}
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	return a, d.Err
}

// dropSource wipes the state of the tenant's queries that read the
// queue; it answers how many queries and rows.
func (s *state) dropSource(op *DropSourceOp) ([]byte, error) {
	var hit []Query
	err := eachQuery(s.tx.Scan, queriesPrefix(op.Tenant), func(_ string, q Query) bool {
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
		hit[i].Updated = s.at.Stamp
		s.save(op.Tenant, &hit[i])
	}
	return binary.AppendVarint(binary.AppendUvarint(nil, uint64(len(hit))), rows), nil
}

// DecodeDropSource reads the answer of a DropSourceOp: the queries whose
// state it wiped and the rows they held.
func DecodeDropSource(b []byte) (queries int, rows int64, err error) {
	d := wire.NewDecoder(b, ErrCorrupt)
	queries, rows = int(d.Uvarint()), d.Varint()
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	return queries, rows, d.Err
}

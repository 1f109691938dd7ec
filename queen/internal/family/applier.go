package family

import "github.com/queen-mq/queen-go/raftlog"

// Op is a decoded op of a family whose ops apply on a state of type S:
// the family's access to the entry's store, which only its applier makes.
type Op[S any] interface {
	// Op is the op's encoding, which decodes back to it.
	Op() raftlog.Op
	// Apply applies the op, judged on its entry alone (the family's
	// applier calls it).
	Apply(s S) ([]byte, error)
}

// Entry is where an op applies: its entry's transaction and the op's
// place in it (stamp, index, shard).
type Entry struct {
	Tx *raftlog.Txn
	At raftlog.ApplyInfo
}

// Applier is a family's raftlog.Applier and raftlog.StorageGrower: it
// decodes an op, makes the family's state for the entry, and applies the
// op on it.
type Applier[S any] struct {
	// Decode reads an op, refusing one that does not decode or that the
	// contract refuses (as the proposer's check did).
	Decode func(data []byte) (Op[S], error)
	// State is the family's state for an op applied in e.
	State func(e Entry) S
	// Growing says whether an op may grow the store, and is refused while
	// a disk is full (nil: no op does). It reads the op's bytes.
	Growing func(data []byte) bool
}

// Apply decodes the op and applies it: one that does not decode is
// refused.
func (a Applier[S]) Apply(tx *raftlog.Txn, at raftlog.ApplyInfo, data []byte) ([]byte, error) {
	op, err := a.Decode(data)
	if err != nil {
		return nil, err
	}
	return op.Apply(a.State(Entry{Tx: tx, At: at}))
}

// Grows implements raftlog.StorageGrower with Growing.
func (a Applier[S]) Grows(data []byte) bool { return a.Growing != nil && a.Growing(data) }

// Appliers is the family's applier under its op kind, to pass to
// raftlog.Host.StartShard beside the other families'.
func (a Applier[S]) Appliers(kind raftlog.OpKind) map[raftlog.OpKind]raftlog.Applier {
	return map[raftlog.OpKind]raftlog.Applier{kind: a}
}

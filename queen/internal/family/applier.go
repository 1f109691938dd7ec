package family

import "github.com/queen-mq/queen-go/raftlog"

// Applier is a family's raftlog.Applier and raftlog.StorageGrower, for
// ops of type O.
type Applier[O any] struct {
	// Decode reads an op, refusing one that does not decode or that the
	// contract refuses (as the proposer's check did).
	Decode func(data []byte) (O, error)
	// Do applies a decoded op, judged on the entry alone.
	Do func(tx *raftlog.Txn, at raftlog.ApplyInfo, op O) ([]byte, error)
	// Growing says whether an op may grow the store, and is refused while
	// a disk is full (nil: no op does). It reads the op's bytes.
	Growing func(data []byte) bool
}

// Apply decodes the op and applies it: one that does not decode is
// refused.
func (a Applier[O]) Apply(tx *raftlog.Txn, at raftlog.ApplyInfo, data []byte) ([]byte, error) {
	op, err := a.Decode(data)
	if err != nil {
		return nil, err
	}
	return a.Do(tx, at, op)
}

// Grows implements raftlog.StorageGrower with Growing.
func (a Applier[O]) Grows(data []byte) bool { return a.Growing != nil && a.Growing(data) }

// Appliers is the family's applier under its op kind, to pass to
// raftlog.Host.StartShard beside the other families'.
func (a Applier[O]) Appliers(kind raftlog.OpKind) map[raftlog.OpKind]raftlog.Applier {
	return map[raftlog.OpKind]raftlog.Applier{kind: a}
}

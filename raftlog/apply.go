package raftlog

import (
	"errors"
	"fmt"
)

// Applier applies the operations of the kinds it is registered for. It is
// part of the replicated state machine, so it must be deterministic: what
// it writes and answers follows from the op, ApplyInfo and what it reads
// through the Txn, never from a clock, randomness, map order or anything
// else of the node.
type Applier interface {
	// Apply applies one op. Its answer is returned to the proposer in the
	// entry's Result. To roll back the whole entry (a precondition failed)
	// it returns Abort(answer). An error wrapping ErrStorage halts the node;
	// any other error rolls the entry back and answers the error's text
	// (see Rejected).
	Apply(tx *Txn, at ApplyInfo, data []byte) (answer []byte, err error)
}

// ApplyInfo says where an op sits in the log.
type ApplyInfo struct {
	Shard uint64
	// Index is the entry's raft index: unique and increasing in the shard.
	Index uint64
	// Stamp is the entry's stamp on the broker clock, microseconds.
	Stamp int64
	// Op is the op's position in its command.
	Op int
	// Nested numbers the ops applied through Txn.Apply within the entry
	// (1, 2, …; 0 for the entry's own ops), so that what an applier
	// derives from ApplyInfo (a new partition's id) differs between them.
	Nested int
}

// abortError carries the answer of an op that rolls its entry back.
type abortError struct{ answer []byte }

func (e *abortError) Error() string { return "raftlog: entry aborted by its op" }

// Abort returns the error an Applier returns to roll its entry back, with
// answer as the op's answer.
func Abort(answer []byte) error { return &abortError{answer: answer} }

// rejectedPrefix starts the answer of an op whose applier failed with an
// ordinary error (or that no applier knew): the answer is the prefix and
// the error's text.
const rejectedPrefix = "\x00raftlog-rejected:"

// Rejected reports whether an op's answer says the op was refused by
// raftlog itself or by an applier's error, and why.
func Rejected(answer []byte) (reason string, ok bool) {
	if len(answer) >= len(rejectedPrefix) && string(answer[:len(rejectedPrefix)]) == rejectedPrefix {
		return string(answer[len(rejectedPrefix):]), true
	}
	return "", false
}

func rejected(err error) []byte { return []byte(rejectedPrefix + err.Error()) }

// applyCommand applies one decoded command through tx and returns its
// result. Storage errors are returned; everything else is in the result.
func (sm *stateMachine) applyCommand(tx *Txn, cmd Command, index uint64, stamp int64) (Result, error) {
	res := Result{Stamp: stamp, Aborted: -1, Ops: make([][]byte, 0, len(cmd.Ops))}
	for i, op := range cmd.Ops {
		ap, ok := sm.appliers[op.Kind]
		if !ok {
			res.Ops = append(res.Ops, rejected(fmt.Errorf("raftlog: no applier for op kind %d", op.Kind)))
			res.Aborted = i
			return res, nil
		}
		answer, err := ap.Apply(tx, ApplyInfo{Shard: sm.shardID, Index: index, Stamp: stamp, Op: i}, op.Data)
		var abort *abortError
		switch {
		case err == nil:
			res.Ops = append(res.Ops, answer)
			continue
		case errors.Is(err, ErrStorage):
			return Result{}, err
		case errors.As(err, &abort):
			res.Ops = append(res.Ops, abort.answer)
		default:
			res.Ops = append(res.Ops, rejected(err))
		}
		res.Aborted = i
		return res, nil
	}
	return res, nil
}

package raftlog

import (
	"context"
	"errors"
	"fmt"
)

// ErrRejected is wrapped by the error of an op its applier refused: the
// entry applied nothing.
var ErrRejected = errors.New("raftlog: rejected")

// ProposeOp commits a command of one op and returns the op's answer and
// the entry's stamp. An op its applier refused is an error wrapping
// ErrRejected, with the applier's reason.
func (s *Shard) ProposeOp(ctx context.Context, op Op) ([]byte, int64, error) {
	res, err := s.Propose(ctx, Command{Ops: []Op{op}})
	if err != nil {
		return nil, 0, err
	}
	if reason, ok := Rejected(res.Ops[0]); ok {
		return nil, res.Stamp, fmt.Errorf("%w: %s", ErrRejected, reason)
	}
	return res.Ops[0], res.Stamp, nil
}

package family

import (
	"context"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"
)

// FirstErr is the first of errs that is not nil: the first refusal of a
// list of checks of an op's fields, each naming its field.
func FirstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Refused wraps a refusal of the family's check in raftlog.ErrRejected
// (nil stays nil): the proposer refuses what apply would.
func Refused(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", raftlog.ErrRejected, err)
}

// Call runs a call of n operations: one check refuses (wrapped in
// raftlog.ErrRejected) is refused before anything is read or proposed, an
// empty one answers no answers and proposes nothing, any other is run.
func Call[A any](n int, check error, run func() ([]A, error)) ([]A, error) {
	if err := Refused(check); err != nil {
		return nil, err
	}
	if n == 0 {
		return []A{}, nil
	}
	return run()
}

// Propose proposes op alone on shard and decodes its answer, unless
// check (the family's check of the op) refused it: then it answers the
// refusal wrapped in raftlog.ErrRejected and proposes nothing. Other
// errors are raftlog's (ErrTimeout: the outcome is unknown).
func Propose[A any](ctx context.Context, shard *raftlog.Shard, check error, op raftlog.Op, decode func([]byte) (A, error)) (A, error) {
	var zero A
	if err := Refused(check); err != nil {
		return zero, err
	}
	b, _, err := shard.ProposeOp(ctx, op)
	if err != nil {
		return zero, err
	}
	return decode(b)
}

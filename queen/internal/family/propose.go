package family

import (
	"context"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"
)

// Refused wraps a refusal of the family's check in raftlog.ErrRejected
// (nil stays nil): the proposer refuses what apply would.
func Refused(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", raftlog.ErrRejected, err)
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

package streams

import (
	"context"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
)

// Streams runs the family's registrations, deletes and reads on one
// shard, from any node. A cycle is the broker's to propose: its command
// joins this family's CycleOp with consume's ack and the queue log's
// pushes.
type Streams struct {
	Shard *raftlog.Shard
}

// Register applies a registration as one entry. CheckRegister's
// refusals wrap raftlog.ErrRejected and come before anything is
// proposed; a retry after ErrTimeout registers nothing twice (the same
// hash answers the standing registration), but a retried reset resets
// again.
func (s *Streams) Register(ctx context.Context, op RegisterOp) (RegisterAnswer, error) {
	return family.Propose(ctx, s.Shard, CheckRegister(&op), op.Op(), DecodeRegister)
}

// Delete forgets a query, its registration and its state.
func (s *Streams) Delete(ctx context.Context, tenant, name string) (DeleteAnswer, error) {
	op := DeleteOp{Tenant: tenant, Name: name}
	return family.Propose(ctx, s.Shard, check(&op), op.Op(), DecodeDelete)
}

// Read runs fn on a linearizable view (Get, ByID, List, State): a
// worker's state read sees every cycle answered before it, through any
// node.
func (s *Streams) Read(ctx context.Context, fn func(v *raftlog.View) (any, error)) (any, error) {
	return s.Shard.Read(ctx, fn)
}

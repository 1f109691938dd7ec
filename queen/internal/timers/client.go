package timers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/queen/internal/tick"
	"github.com/queen-mq/queen-go/raftlog"
)

// Timers runs timer calls and reads on one shard, from any node.
type Timers struct {
	Shard *raftlog.Shard
}

// Do applies one call as one entry and answers each operation in order.
// Check's refusals wrap raftlog.ErrRejected and come before anything is
// proposed; other errors are raftlog's (ErrTimeout: outcome unknown; a
// retry upserts the same timer again).
func (t *Timers) Do(ctx context.Context, c Call) ([]Answer, error) {
	return family.Call(len(c.Ops), Check(c.Ops), func() ([]Answer, error) {
		got, err := family.Propose(ctx, t.Shard, nil, c.Op(), DecodeAnswers)
		if err == nil && len(got) != len(c.Ops) {
			err = fmt.Errorf("%w: %d answers for %d operations", ErrCorrupt, len(got), len(c.Ops))
		}
		return got, err
	})
}

// Read runs fn on a linearizable view (peek, list, count).
func (t *Timers) Read(ctx context.Context, fn func(v *raftlog.View) (any, error)) (any, error) {
	return t.Shard.Read(ctx, fn)
}

// Firer proposes the fires of one shard while its node leads it: every
// Tick (QUEEN_RAFT_TIMER_TICK_MS) it looks at its applied state for a due
// timer and, when one is due on its clock, proposes a FireOp. The entry
// decides what is due, on its stamp, so a fire proposed twice (a leader
// change) fires nothing twice.
type Firer struct {
	Shard *raftlog.Shard
	Node  uint64
	Tick  time.Duration
	Log   *slog.Logger
	// Fired, when set, counts what each fire did (metrics).
	Fired func(FireAnswer)
}

// Run fires until ctx ends.
func (f *Firer) Run(ctx context.Context) { tick.Every(ctx, f.Tick, func() { f.fireDue(ctx) }) }

// fireDue proposes fires while this node leads and a timer is due.
func (f *Firer) fireDue(ctx context.Context) {
	for f.Shard.Leader() == f.Node && ctx.Err() == nil {
		more, err := f.once(ctx)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				f.Log.Warn("timers: fire", "err", err)
			}
			return
		}
		if !more {
			return
		}
	}
}

// once proposes one fire when a timer is due; more says another is due.
func (f *Firer) once(ctx context.Context) (bool, error) {
	// An entry proposed now is stamped at least this: the clock, or one
	// past the last stamp when stamps run ahead of this node's clock.
	now := max(time.Now().UnixMicro(), f.Shard.SafeTime()+1)
	v, err := f.Shard.LocalRead(func(v *raftlog.View) (any, error) {
		due, ok, err := NextDue(v)
		return ok && due <= now, err
	})
	if err != nil || !v.(bool) {
		return false, err
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	b, _, err := f.Shard.ProposeOp(pctx, FireOp{Limit: FireLimit}.Op())
	if err != nil {
		return false, err
	}
	a, err := DecodeFire(b)
	if err != nil {
		return false, err
	}
	if f.Fired != nil {
		f.Fired(a)
	}
	return a.More, nil
}

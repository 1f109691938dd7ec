package kvstore

import (
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"
)

// Appliers returns the KV applier by op kind, to pass to
// raftlog.Host.StartShard. Every node of a shard must run it.
func Appliers() map[raftlog.OpKind]raftlog.Applier {
	return map[raftlog.OpKind]raftlog.Applier{OpKV: applier{}, OpSweep: sweeper{}}
}

// applier applies OpKV ops: one call each, its ops in order through the
// entry's Txn, judged on the entry's stamp.
type applier struct{}

var _ raftlog.Applier = applier{}

// Apply evaluates one call. A required op that is not applied rolls the
// whole entry back (raftlog.Abort) with the failure as the answer. A call
// that does not decode is refused (the entry rolls back, the proposer gets
// raftlog.ErrRejected); a stored row that does not decode is a storage
// error and halts the node rather than let it diverge.
func (applier) Apply(tx *raftlog.Txn, at raftlog.ApplyInfo, data []byte) ([]byte, error) {
	c, err := decodeCall(data)
	if err != nil {
		return nil, err
	}
	if err := checkCall(c); err != nil {
		return nil, fmt.Errorf("kvstore: %w", err)
	}
	e := evaluator{st: tx, tx: tx, stamp: at.Stamp}
	a, err := e.run(c)
	if err != nil {
		return nil, err
	}
	answer := appendAnswer(nil, a)
	if !a.OK {
		return nil, raftlog.Abort(answer)
	}
	return answer, nil
}

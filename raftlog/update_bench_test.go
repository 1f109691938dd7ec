package raftlog

import (
	"fmt"
	"log/slog"
	"testing"

	sm "github.com/lni/dragonboat/v4/statemachine"
)

// BenchmarkUpdate applies pushes of one 200-byte record, 64 entries per
// Update, straight into a state machine: the apply cost without raft.
func BenchmarkUpdate(b *testing.B) {
	m := newStateMachine(1, 1, b.TempDir(), map[OpKind]Applier{OpPush: queueApplier{kind: OpPush}}, slog.Default(), newWatchers())
	if _, err := m.Open(nil); err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	payload := make([]byte, 200)
	index := uint64(0)
	entries := make([]sm.Entry, 64)
	b.SetBytes(64 * 200)
	for b.Loop() {
		for j := range entries {
			index++
			op := PushOp{Tenant: "00000000-0000-0000-0000-000000000001", Items: []PushItem{{Queue: "q", Partition: fmt.Sprintf("p-%d", index%100),
				TransactionID: fmt.Sprintf("tx-%d", index), Dedup: true, Payload: payload}}}
			entries[j] = sm.Entry{Index: index, Cmd: AppendCommand(nil, &Command{Clock: int64(index), Ops: []Op{op.Op()}})}
		}
		if _, err := m.Update(entries); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*64)/b.Elapsed().Seconds(), "entries/s")
}

package raftlog_test

import (
	"fmt"
	"log/slog"
	"testing"

	sm "github.com/lni/dragonboat/v4/statemachine"
	. "github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// BenchmarkUpdate applies pushes of one 200-byte record with a new
// transaction id, 64 entries per Update, straight into a state machine:
// the apply cost without raft. The sub-benchmarks run it with the dedup
// filter, without (every dedup lookup reads Pebble, as before it), and
// with a filter so small (16k keys at first) that it is rebuilt, on
// another goroutine, every time the keys pushed double.
func BenchmarkUpdate(b *testing.B) {
	for _, tc := range []struct {
		name string
		set  func(*DedupFilter)
	}{
		{"dedup-filter=on", func(*DedupFilter) {}},
		{"dedup-filter=off", func(d *DedupFilter) { d.SetOff() }},
		{"dedup-filter=rebuilding", func(d *DedupFilter) { d.SetMinKeys(1 << 14) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			m := NewStateMachine(1, 1, b.TempDir(), map[OpKind]Applier{queuelog.OpPush: queuelog.Appliers()[queuelog.OpPush]}, slog.Default())
			tc.set(m.Dedup())
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
					op := queuelog.PushOp{Tenant: "00000000-0000-0000-0000-000000000001", Items: []queuelog.PushItem{{Queue: "q", Partition: fmt.Sprintf("p-%d", index%100),
						TransactionID: fmt.Sprintf("tx-%d", index), Dedup: true, Payload: payload}}}
					entries[j] = sm.Entry{Index: index, Cmd: AppendCommand(nil, &Command{Clock: int64(index), Ops: []Op{op.Op()}})}
				}
				if _, err := m.Update(entries); err != nil {
					b.Fatal(err)
				}
			}
			st := m.DedupStats()
			b.ReportMetric(float64(b.N*64)/b.Elapsed().Seconds(), "entries/s")
			b.ReportMetric(float64(st.Read)/float64(b.N*64), "reads/entry")
			b.ReportMetric(float64(st.Builds), "builds")
		})
	}
}

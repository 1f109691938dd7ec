package raftlog

import (
	"fmt"
	"log/slog"
	"testing"

	sm "github.com/lni/dragonboat/v4/statemachine"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
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
		set  func(*dedupFilter)
	}{
		{"dedup-filter=on", func(*dedupFilter) {}},
		{"dedup-filter=off", func(d *dedupFilter) { d.off = true }},
		{"dedup-filter=rebuilding", func(d *dedupFilter) { d.minKeys = 1 << 14 }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			m := newStateMachine(1, 1, b.TempDir(), map[OpKind]Applier{OpPush: QueueLog.Appliers()[OpPush]}, slog.Default(), newWatchers())
			tc.set(&m.dedup)
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
			st := statsOf(m)
			b.ReportMetric(float64(b.N*64)/b.Elapsed().Seconds(), "entries/s")
			b.ReportMetric(float64(st.Read)/float64(b.N*64), "reads/entry")
			b.ReportMetric(float64(st.Builds), "builds")
		})
	}
}

// BenchmarkDedupFilterBuild times a build of the filter from a store of
// 1M dedup keys (two passes: count, then hash): what Open and a snapshot
// recovery pay, and what a rebuild costs its goroutine.
func BenchmarkDedupFilterBuild(b *testing.B) {
	m := newStateMachine(1, 1, b.TempDir(), nil, slog.Default(), newWatchers())
	if _, err := m.Open(nil); err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	const keys = 1 << 20
	batch := m.db.NewBatch()
	for i := range keys {
		k := storefmt.DedupKey(uint64(1+i%100), fmt.Sprintf("%016d", i))
		if err := batch.Set(k, make([]byte, 26), nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := batch.Commit(nil); err != nil {
		b.Fatal(err)
	}
	if err := m.db.Flush(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, n, _, err := buildFilter(m.db, defaultFilterKeys, nil); err != nil || n != keys {
			b.Fatal(n, err)
		}
	}
	b.ReportMetric(float64(b.N*keys)/b.Elapsed().Seconds(), "keys/s")
}

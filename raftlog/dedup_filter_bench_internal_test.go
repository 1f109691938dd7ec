package raftlog

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
)

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

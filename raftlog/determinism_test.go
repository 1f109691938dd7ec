package raftlog_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"testing"

	sm "github.com/lni/dragonboat/v4/statemachine"
	. "github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

func testAppliers() map[OpKind]Applier {
	m := queuelog.Appliers()
	m[detKind] = detApplier{}
	return m
}

func openSM(t testing.TB, dir string) *StateMachine {
	t.Helper()
	s := NewStateMachine(1, 1, dir, testAppliers(), slog.New(slog.DiscardHandler))
	if _, err := s.Open(nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// entries turns log[from:to] into dragonboat entries, indexes from 1.
func entries(log [][]byte, from, to int) []sm.Entry {
	out := make([]sm.Entry, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, sm.Entry{Index: uint64(i + 1), Cmd: log[i]})
	}
	return out
}

// applyRun applies log[from:to] to s in Updates of sizes drawn by size, and
// appends each entry's result to results.
func applyRun(t testing.TB, s *StateMachine, log [][]byte, from, to int, size func() int, results *[][]byte) {
	t.Helper()
	for from < to {
		n := min(size(), to-from)
		done, err := s.Update(entries(log, from, from+n))
		if err != nil {
			t.Fatalf("update of entries %d..%d: %v", from+1, from+n, err)
		}
		for _, e := range done {
			if e.Result.Value != e.Index {
				t.Fatalf("entry %d answered value %d", e.Index, e.Result.Value)
			}
			*results = append(*results, e.Result.Data)
		}
		from += n
	}
}

// digest hashes every key and value of s's logical state: a record as
// its bytes, wherever the store keeps them (a segment pointer is where this
// node put it), and without SegKey (node-local).
func digest(t testing.TB, s *StateMachine) (sum [32]byte, keys int) {
	t.Helper()
	it, err := s.DB().NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	h := sha256.New()
	for it.First(); it.Valid(); it.Next() {
		k, v := it.Key(), it.Value()
		if bytes.Equal(k, SegKey) {
			continue
		}
		if storefmt.IsRecordKey(k) && len(v) > 0 && v[0] == storefmt.RecordInSegment {
			p, _, _, err := storefmt.DecodePtr(v)
			if err == nil {
				v, err = s.ReadSegment(p)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		h.Write(binary.AppendUvarint(nil, uint64(len(k))))
		h.Write(k)
		h.Write(binary.AppendUvarint(nil, uint64(len(v))))
		h.Write(v)
		keys++
	}
	copy(sum[:], h.Sum(nil))
	return sum, keys
}

// TestDeterminism applies one recorded log to fresh state machines in
// different batch splits, across a restart and across a snapshot, and
// requires the same answers and the same store, byte for byte.
func TestDeterminism(t *testing.T) {
	const n = 1500
	log := recordedLog(42, n)
	one := func() int { return 1 }
	rng := rand.New(rand.NewPCG(3, 4))
	random := func() int { return 1 + rng.IntN(60) }

	type run struct {
		name    string
		sum     [32]byte
		results [][]byte
	}
	var runs []run
	record := func(name string, s *StateMachine, results [][]byte) {
		sum, keys := digest(t, s)
		if keys < 100 {
			t.Fatalf("%s: only %d keys stored", name, keys)
		}
		runs = append(runs, run{name, sum, results})
	}
	dir := t.TempDir()
	// The reference: one entry per Update and the metadata cache emptied
	// after each, so no entry reads what the cache kept from another.
	{
		s := openSM(t, filepath.Join(dir, "reference"))
		var results [][]byte
		applyRun(t, s, log, 0, n, func() int { s.ClearCache(); return 1 }, &results)
		record("no cache", s, results)
	}
	for _, tc := range []struct {
		name string
		size func() int
	}{{"one entry per update", one}, {"all in one update", func() int { return n }}, {"random splits", random}} {
		s := openSM(t, filepath.Join(dir, tc.name))
		var results [][]byte
		applyRun(t, s, log, 0, n, tc.size, &results)
		record(tc.name, s, results)
		if s.Applied() != n {
			t.Fatalf("%s: applied %d", tc.name, s.Applied())
		}
	}

	// The dedup filter decides only whether a lookup reads: without one, or
	// with one so small that it is rebuilt on another goroutine every few
	// Updates and swapped in whenever the rebuild is done, apply answers and
	// stores the same.
	for _, tc := range []struct {
		name  string
		set   func(*DedupFilter)
		built uint64
	}{{"no dedup filter", func(d *DedupFilter) { d.SetOff() }, 0}, {"dedup filter rebuilt often", func(d *DedupFilter) { d.SetMinKeys(8) }, 5}} {
		s := openSM(t, filepath.Join(dir, tc.name))
		tc.set(s.Dedup())
		s.RebuildDedup()
		var results [][]byte
		applyRun(t, s, log, 0, n, random, &results)
		record(tc.name, s, results)
		st := s.DedupStats()
		t.Logf("%s: %+v", tc.name, st)
		if st.Builds < tc.built {
			t.Fatalf("%s: %+v", tc.name, st)
		}
	}

	// Stopped and opened again halfway: the new process has no cache.
	{
		s := openSM(t, filepath.Join(dir, "restart"))
		var results [][]byte
		applyRun(t, s, log, 0, n/2, random, &results)
		stamp := s.Stamp()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = openSM(t, filepath.Join(dir, "restart"))
		if s.Applied() != n/2 || s.Stamp() != stamp {
			t.Fatalf("reopened at index %d stamp %d, closed at %d %d", s.Applied(), s.Stamp(), n/2, stamp)
		}
		applyRun(t, s, log, n/2, n, random, &results)
		record("restart", s, results)
	}

	// A snapshot taken a third of the way in, recovered into a store that
	// held other data, then the rest of the log.
	{
		src := openSM(t, filepath.Join(dir, "snapshot-source"))
		var results [][]byte
		applyRun(t, src, log, 0, n/3, random, &results)
		var buf bytes.Buffer
		pinned, err := src.PrepareSnapshot()
		if err != nil {
			t.Fatal(err)
		}
		applyRun(t, src, log, n/3, n/3+10, one, new([][]byte)) // after the pin: not in the snapshot
		if err := src.SaveSnapshot(pinned, &buf, make(chan struct{})); err != nil {
			t.Fatal(err)
		}
		dst := openSM(t, filepath.Join(dir, "snapshot-target"))
		applyRun(t, dst, recordedLog(43, 200), 0, 200, random, new([][]byte))
		if err := dst.RecoverFromSnapshot(&buf, make(chan struct{})); err != nil {
			t.Fatal(err)
		}
		if dst.Applied() != n/3 {
			t.Fatalf("recovered at index %d, want %d", dst.Applied(), n/3)
		}
		applyRun(t, dst, log, n/3, n, random, &results)
		record("snapshot", dst, results)
	}

	for _, r := range runs[1:] {
		if r.sum != runs[0].sum {
			t.Errorf("%s: store digest %x, %s: %x", r.name, r.sum, runs[0].name, runs[0].sum)
		}
		for i := range r.results {
			if !bytes.Equal(r.results[i], runs[0].results[i]) {
				t.Fatalf("%s: entry %d answered %x, %s: %x", r.name, i+1, r.results[i], runs[0].name, runs[0].results[i])
			}
		}
	}
	checkCoverage(t, log, runs[0].results)
}

// checkCoverage fails the test unless the log really met duplicates,
// trims that deleted, aborts, refusals and undecodable entries.
func checkCoverage(t *testing.T, log [][]byte, results [][]byte) {
	seen := map[string]int{}
	for i, data := range results {
		res, err := DecodeResult(data)
		if err != nil {
			t.Fatalf("entry %d: result: %v", i+1, err)
		}
		cmd, derr := DecodeCommand(log[i])
		switch {
		case derr != nil:
			seen["undecodable"]++
			continue
		case !res.Applied():
			if _, ok := Rejected(res.Ops[res.Aborted]); ok {
				seen["rejected"]++
			} else {
				seen["aborted"]++
			}
			continue
		}
		for j, op := range cmd.Ops {
			switch op.Kind {
			case queuelog.OpPush:
				answers, err := queuelog.DecodePushAnswers(res.Ops[j])
				if err != nil {
					t.Fatal(err)
				}
				for _, a := range answers {
					if a.Duplicate {
						seen["duplicate"]++
					} else {
						seen["appended"]++
					}
				}
			case queuelog.OpTrim:
				if n, _ := binary.Uvarint(res.Ops[j]); n > 0 {
					seen["trimmed"]++
				}
			case queuelog.OpConfigure:
				seen["configured"]++
			}
		}
	}
	for _, what := range []string{"undecodable", "rejected", "aborted", "duplicate", "appended", "trimmed", "configured"} {
		if seen[what] < 3 {
			t.Errorf("the log met %q only %d times: %v", what, seen[what], seen)
		}
	}
	t.Logf("the log met %v", seen)
}

package lake

import (
	"fmt"
	"maps"
	"slices"
	"sort"
)

// checkSequence checks that the windows are k = 1..n with no gap, and
// that none starts before the previous one ends. A gap in time between
// two windows is fine: the sink skips stretches with no record.
func (v *verifier) checkSequence() {
	var want uint64 = 1
	var prev *Window
	for i := range v.windows {
		w := &v.windows[i]
		if w.K == 0 {
			continue // not a manifest key: reported already
		}
		switch {
		case w.K > want && want == 1:
			v.r.add(CheckSequence, w.K, "", "windows 1..%d are missing (the first manifest is k %d)", w.K-1, w.K)
		case w.K == want+1:
			v.r.add(CheckSequence, w.K, "", "window %d is missing (no manifest between k %d and k %d)", want, want-1, w.K)
		case w.K > want:
			v.r.add(CheckSequence, w.K, "", "windows %d..%d are missing (no manifest between k %d and k %d)", want, w.K-1, want-1, w.K)
		}
		want = w.K + 1
		if w.Manifest == nil {
			prev = nil
			continue
		}
		if prev != nil && w.Manifest.TStart < prev.Manifest.TEnd {
			v.r.add(CheckOverlap, w.K, "", "starts at %s, before window %d ends at %s",
				iso(w.Manifest.TStart), prev.K, iso(prev.Manifest.TEnd))
		}
		prev = w
	}
}

// checkAcross checks each partition's records across windows: no
// (partition, offset) twice, offsets rising from one window to the next,
// and no lost range over a record the lake holds or over another lost
// range. It leaves the index sorted by offset.
func (v *verifier) checkAcross() {
	for _, part := range sortedKeys(v.recs) {
		v.checkRising(part, v.recs[part])
	}
	v.sortIndex()
	for _, part := range sortedKeys(v.recs) {
		v.checkDuplicates(part, v.recs[part])
	}
	for _, part := range sortedKeys(v.lost) {
		v.checkLostRanges(part)
	}
}

// checkRising reports, once per window, a window of part holding an
// offset at or below one of an earlier window that is not a repeat of it
// (repeats are duplicates, reported as such). rs is in window order;
// order within an object is the object check's.
func (v *verifier) checkRising(part string, rs []lakeRec) {
	offs := make([]int64, len(rs))
	for i, r := range rs {
		offs[i] = r.offset
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	dup := map[int64]bool{}
	for i := 1; i < len(offs); i++ {
		if offs[i] == offs[i-1] {
			dup[offs[i]] = true
		}
	}
	var top, windowTop int64 = -1, -1 // greatest offset before window k; in window k
	var topK, k uint64
	reported := false
	for _, r := range rs {
		if r.k != k {
			if windowTop > top {
				top, topK = windowTop, k
			}
			k, windowTop, reported = r.k, -1, false
		}
		windowTop = max(windowTop, r.offset)
		if r.offset <= top && !dup[r.offset] && !reported {
			v.r.add(CheckOffsets, r.k, "", "partition %q: offset %d comes after offset %d of window %d",
				part, r.offset, top, topK)
			reported = true
		}
	}
}

// checkDuplicates reports offsets held twice, in runs: consecutive
// offsets repeated in the same two windows are one problem. Twice in one
// window is a duplicate too (two objects of it, or one out of order).
func (v *verifier) checkDuplicates(part string, rs []lakeRec) {
	type run struct {
		from, to int64
		k1, k2   uint64
	}
	var cur *run
	flush := func() {
		if cur == nil {
			return
		}
		where := fmt.Sprintf("in windows %d and %d", cur.k1, cur.k2)
		if cur.k1 == cur.k2 {
			where = fmt.Sprintf("twice in window %d", cur.k1)
		}
		v.r.add(CheckDuplicate, cur.k2, "", "partition %q %s %s", part, offsets(cur.from, cur.to), where)
		cur = nil
	}
	for i := 1; i < len(rs); i++ {
		a, b := rs[i-1], rs[i]
		if a.offset != b.offset {
			continue
		}
		if cur != nil && cur.k1 == a.k && cur.k2 == b.k && b.offset == cur.to+1 {
			cur.to = b.offset
			continue
		}
		flush()
		cur = &run{from: b.offset, to: b.offset, k1: a.k, k2: b.k}
	}
	flush()
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

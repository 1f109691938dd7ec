package lake

import "sort"

// The lost ranges: offsets retention deleted before the sink read them,
// which manifests declare so that the loss is never silent.

// checkLostRanges reports lost ranges of part that cover a record the lake
// holds, or overlap another lost range.
func (v *verifier) checkLostRanges(part string) {
	ls := append([]lostAt(nil), v.lost[part]...)
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].from < ls[j].from })
	for i := 1; i < len(ls); i++ {
		if ls[i].from <= ls[i-1].to {
			v.r.add(CheckLost, ls[i].k, "", "partition %q: lost range %d..%d overlaps lost range %d..%d of window %d",
				part, ls[i].from, ls[i].to, ls[i-1].from, ls[i-1].to, ls[i-1].k)
		}
	}
	rs := v.recs[part]
	for _, l := range ls {
		i := sort.Search(len(rs), func(i int) bool { return rs[i].offset >= l.from })
		if i < len(rs) && rs[i].offset <= l.to {
			v.r.add(CheckLost, l.k, "", "partition %q: lost range %d..%d covers offset %d, which the lake holds (window %d)",
				part, l.from, l.to, rs[i].offset, rs[i].k)
		}
	}
}

// checkLostCover checks that every offset below the broker's log start
// that the lake should hold is in the lake or in a lost range. Offsets
// between two the lake accounts for (a record or a lost range) are due;
// so is everything up to the log start when the broker's first record is
// stamped before the last window's end (stamps rise with offsets). Past
// the lake's last accounted offset otherwise, a later window will say.
func (v *verifier) checkLostCover(pc *partCheck) {
	type span struct{ from, to int64 }
	var acc []span
	for _, lr := range pc.lake {
		if n := len(acc); n > 0 && lr.offset <= acc[n-1].to+1 {
			acc[n-1].to = max(acc[n-1].to, lr.offset)
			continue
		}
		acc = append(acc, span{lr.offset, lr.offset})
	}
	for _, l := range v.lost[pc.name] {
		acc = append(acc, span{l.from, l.to})
	}
	if len(acc) == 0 {
		return
	}
	sort.Slice(acc, func(i, j int) bool { return acc[i].from < acc[j].from })
	merged := acc[:1]
	for _, s := range acc[1:] {
		if last := &merged[len(merged)-1]; s.from <= last.to+1 {
			last.to = max(last.to, s.to)
		} else {
			merged = append(merged, s)
		}
	}
	L := pc.logStart
	if merged[0].from >= L {
		return
	}
	top := merged[len(merged)-1].to
	bound := top + 1
	if pc.seen && pc.firstTs < v.tn {
		bound = L
	}
	hi := min(bound, L) // offsets in [first accounted, hi) are due
	gap := func(from, to int64) {
		if from <= to {
			v.r.add(CheckLost, 0, "", "partition %q %s gone from the broker (log start %d), not in the lake, and in no lost range",
				pc.name, offsets(from, to), L)
		}
	}
	for i := 1; i < len(merged) && merged[i-1].to+1 < hi; i++ {
		gap(merged[i-1].to+1, min(merged[i].from, hi)-1)
	}
	if top+1 < hi {
		gap(top+1, hi-1)
	}
	if bound < L && top+1 < L {
		v.r.note("partition %q: offsets %d..%d are gone from the broker past the lake's last record; a later window will say whether they were lost",
			pc.name, top+1, L-1)
	}
}

package lake

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"math"
)

// partCheck is the comparison of one partition with the broker.
type partCheck struct {
	name string
	// next is the next offset to fetch; logStart the broker's log start,
	// the latest it said.
	next, logStart int64
	done           bool
	// lake is the partition's lake records, by offset; matched marks those
	// the broker has too; lakeTop is the greatest offset (-1: none).
	lake    []lakeRec
	matched []bool
	lakeTop int64
	// firstTs is the stamp of the first record fetched, when seen.
	firstTs int64
	seen    bool
	missing run
}

// run gathers consecutive offsets into one problem.
type run struct {
	on           bool
	from, to     int64
	tsFrom, tsTo int64
	k            uint64
}

// checkBroker compares the lake with the broker's log, partition by
// partition: every record the broker holds stamped in the lake's span
// [first tStart, last tEnd) must be in the lake with the same ts,
// transactionId and payload; every lake record must be in the broker,
// unless the broker's log start moved past it (retention: a note); and
// offsets gone from the broker that the lake lacks must be in a lost
// range.
func (v *verifier) checkBroker(ctx context.Context) error {
	b := newBrokerClient(&v.cfg)
	ps, code, err := b.partitions(ctx, v.cfg.Queue)
	if err != nil {
		return err
	}
	bs := &BrokerSummary{Partitions: len(ps)}
	v.r.Broker = bs
	switch code {
	case "":
	case errUnknownQueue:
		v.r.add(CheckBroker, 0, "", "the broker has no queue %q", v.cfg.Queue)
		v.extraPartitions(nil)
		return nil
	default:
		return fmt.Errorf("lake: broker partitions/changed: %s", code)
	}
	if v.r.Windows == 0 {
		v.r.note("no committed window: nothing to compare with the broker")
	} else if start, ok, err := b.startPoint(ctx, v.sink, v.cfg.Queue); err != nil {
		v.r.note("the sink's start point could not be read (%v): records before the first window not checked", err)
	} else if ok {
		v.start, v.startKnown = start, true
		if start < 0 {
			v.start = math.MinInt64
		}
	}
	checks := make([]*partCheck, 0, len(ps))
	listed := map[string]bool{}
	for _, p := range ps {
		if listed[p.Name] {
			continue
		}
		listed[p.Name] = true
		pc := &partCheck{name: p.Name, next: p.LogStart, logStart: p.LogStart, lake: v.recs[p.Name], lakeTop: -1}
		pc.matched = make([]bool, len(pc.lake))
		if n := len(pc.lake); n > 0 {
			pc.lakeTop = pc.lake[n-1].offset
		}
		pc.done = p.LastOffset < p.LogStart // nothing to read
		checks = append(checks, pc)
	}
	for active := checks; ; {
		active = notDone(active)
		if len(active) == 0 {
			break
		}
		batch := active[:min(len(active), maxFetchEntries)]
		qs := make([]fetchQuery, len(batch))
		for i, pc := range batch {
			qs[i] = fetchQuery{Queue: v.cfg.Queue, Partition: pc.name, Offset: pc.next, MaxBytes: fetchMaxBytes}
		}
		ents, err := b.fetch(ctx, qs)
		if err != nil {
			return err
		}
		for i, pc := range batch {
			v.onFetch(pc, &ents[i], bs)
		}
	}
	for _, pc := range checks {
		v.finishPartition(pc, bs)
	}
	v.extraPartitions(listed)
	if bs.Before > 0 {
		v.r.note("the broker holds %d records stamped before the first window's start %s and the sink's start point: the sink began after them (start=latest), not checked",
			bs.Before, iso(v.t0))
	}
	return nil
}

func notDone(pcs []*partCheck) []*partCheck {
	out := pcs[:0:0]
	for _, pc := range pcs {
		if !pc.done {
			out = append(out, pc)
		}
	}
	return out
}

// onFetch takes one fetch answer of pc.
func (v *verifier) onFetch(pc *partCheck, e *fetchEntry, bs *BrokerSummary) {
	pc.logStart = max(pc.logStart, e.LogStartOffset)
	switch e.Error {
	case "":
	case errOutOfRange:
		if pc.next < e.LogStartOffset { // retention moved on since the last look
			pc.next = e.LogStartOffset
			return
		}
		pc.done = true
		return
	default:
		v.r.add(CheckBroker, 0, "", "partition %q: fetch at offset %d: %s", pc.name, pc.next, e.Error)
		pc.done = true
		return
	}
	if len(e.Records) == 0 {
		pc.done = true
		return
	}
	for i := range e.Records {
		r := &e.Records[i]
		ts, err := parseStamp(r.Ts)
		if err == nil && r.Offset < pc.next {
			err = fmt.Errorf("offset %d where %d or more was next", r.Offset, pc.next)
		}
		if err != nil {
			v.r.add(CheckBroker, 0, "", "partition %q: fetch: %v", pc.name, err)
			pc.done = true
			return
		}
		bs.Fetched++
		v.compareRecord(pc, r, ts, bs)
		pc.next = r.Offset + 1
		// Stamps rise with offsets: past the lake's end and its last
		// record, nothing more is due.
		if ts >= v.tn && r.Offset >= pc.lakeTop {
			pc.done = true
			return
		}
	}
	if pc.next >= e.HighWatermark {
		pc.done = true
	}
}

// compareRecord compares one broker record with the lake's record at its
// offset, or notes it missing when it is stamped in the lake's span.
func (v *verifier) compareRecord(pc *partCheck, r *fetchRecord, ts int64, bs *BrokerSummary) {
	if !pc.seen {
		pc.seen, pc.firstTs = true, ts
	}
	i := sort.Search(len(pc.lake), func(i int) bool { return pc.lake[i].offset >= r.Offset })
	if i == len(pc.lake) || pc.lake[i].offset != r.Offset {
		switch {
		case ts < v.t0 && !(v.startKnown && ts >= v.start):
			bs.Before++
		case ts < v.tn:
			// In the lake's span, or after the sink's start point.
			v.addRun(&pc.missing, r.Offset, ts, 0, func(x *run) { v.reportMissing(pc.name, x) })
		}
		return
	}
	pc.matched[i] = true
	bs.Compared++
	lr := &pc.lake[i]
	var diffs []string
	if lr.ts != ts {
		diffs = append(diffs, fmt.Sprintf("ts %s in the lake, %s in the broker", iso(lr.ts), iso(ts)))
	}
	if lr.txn != r.TransactionID {
		diffs = append(diffs, fmt.Sprintf("transactionId %q in the lake, %q in the broker", lr.txn, r.TransactionID))
	}
	line, _, _ := payloadDigests(r.payloadOf(), false)
	if line != lr.line {
		_, compact, ok := payloadDigests(r.payloadOf(), true)
		if !lr.hasCompact || !ok || compact != lr.compact {
			diffs = append(diffs, fmt.Sprintf("payload differs (broker's: %.120s)", r.Payload))
		}
	}
	if len(diffs) > 0 {
		v.r.add(CheckMismatch, lr.k, "", "partition %q offset %d: %s", pc.name, r.Offset, strings.Join(diffs, "; "))
	}
}

// addRun adds offset off to x, flushing x first when off does not extend
// it (or is of another window k).
func (v *verifier) addRun(x *run, off, ts int64, k uint64, flush func(*run)) {
	if x.on && off == x.to+1 && k == x.k {
		x.to, x.tsTo = off, ts
		return
	}
	if x.on {
		flush(x)
	}
	*x = run{on: true, from: off, to: off, tsFrom: ts, tsTo: ts, k: k}
}

func (v *verifier) reportMissing(part string, x *run) {
	v.r.add(CheckMissing, 0, "", "partition %q %s in the broker (stamped %s..%s), not in the lake",
		part, offsets(x.from, x.to), iso(x.tsFrom), iso(x.tsTo))
}

// offsets renders an offset range: "offset 5 is" or "offsets 5..9 (5 records) are".
func offsets(from, to int64) string {
	if from == to {
		return fmt.Sprintf("offset %d is", from)
	}
	return fmt.Sprintf("offsets %d..%d (%d records) are", from, to, to-from+1)
}

// finishPartition reports what is left of pc once read: the missing run,
// lake records the broker does not hold, and offsets gone from the broker
// that neither the lake nor a lost range accounts for.
func (v *verifier) finishPartition(pc *partCheck, bs *BrokerSummary) {
	if pc.missing.on {
		v.reportMissing(pc.name, &pc.missing)
	}
	var extra run
	flushExtra := func(x *run) {
		v.r.add(CheckExtra, x.k, "", "partition %q %s in the lake (window %d), not in the broker (log start %d)",
			pc.name, offsets(x.from, x.to), x.k, pc.logStart)
	}
	var retained int64
	var retFrom, retTo int64
	for i, lr := range pc.lake {
		if pc.matched[i] {
			continue
		}
		if lr.offset < pc.logStart {
			if retained == 0 {
				retFrom = lr.offset
			}
			retained++
			retTo = lr.offset
			continue
		}
		v.addRun(&extra, lr.offset, lr.ts, lr.k, flushExtra)
	}
	if extra.on {
		flushExtra(&extra)
	}
	if retained > 0 {
		bs.Retained += retained
		v.r.note("partition %q: %d lake records (offsets %d..%d) are below the broker's log start %d: retention deleted them there",
			pc.name, retained, retFrom, retTo, pc.logStart)
	}
	v.checkLostCover(pc)
}

// extraPartitions reports the lake's partitions the broker does not list.
func (v *verifier) extraPartitions(listed map[string]bool) {
	for _, part := range sortedKeys(v.recs) {
		rs := v.recs[part]
		if listed[part] || len(rs) == 0 {
			continue
		}
		v.r.add(CheckExtra, 0, "", "partition %q: %d records in the lake (offsets %d..%d), the broker lists no such partition",
			part, len(rs), rs[0].offset, rs[len(rs)-1].offset)
	}
}

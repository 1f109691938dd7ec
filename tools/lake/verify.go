package lake

import (
	"context"
	"sort"

	"github.com/queen-mq/queen-go/lakeformat"
)

// lakeRec is one record of the lake, reduced to what the checks across
// windows and against the broker need.
type lakeRec struct {
	offset, ts int64
	k          uint64
	txn        string
	// line is the digest of the record's payload as JSONL renders it;
	// compact, for Parquet objects only, the digest of its compacted JSON
	// (so payloads compare JSON-equal there). See payloadDigests.
	line, compact digest
	hasCompact    bool
}

// index is the lake's records by partition: in window order as read, and
// sorted by offset once the checks across windows ran.
type index map[string][]lakeRec

// verifier carries one run of Verify.
type verifier struct {
	cfg  Config
	st   Store
	keys lakeformat.Keys
	dirs dirs
	r    *Report

	windows []Window
	recs    index
	// lost are the lost ranges of every manifest, by partition.
	lost map[string][]lostAt
	// named are the data keys the manifests name.
	named map[string]bool
	// lastK is the greatest k of a manifest; t0 and tn the first window's
	// start and the last one's end (µs).
	lastK  uint64
	t0, tn int64
	// start is where the sink's start point says the lake begins, when
	// the broker has one (startKnown): records stamped from it on belong
	// in the lake, before the first window too.
	start      int64
	startKnown bool
	// sink is the sink the manifests name.
	sink string
	// prog counts the objects checked for Config.Progress.
	prog *counter
}

// lostAt is a lost range and the window that declared it.
type lostAt struct {
	from, to int64
	k        uint64
}

// Verify checks the queue's lake (see the package doc for the checks) and,
// when cfg.Broker is set, compares it with the broker's log. Problems go
// into the Report; the error is for a run that could not be made: a bad
// Config, a bucket that cannot be listed, a broker that does not answer.
func Verify(ctx context.Context, cfg Config) (Report, error) {
	st, keys, err := cfg.open()
	if err != nil {
		return Report{}, err
	}
	d, err := queueDirs(keys, cfg.Tenant, cfg.Queue)
	if err != nil {
		return Report{}, err
	}
	v := &verifier{cfg: cfg, st: st, keys: keys, dirs: d, r: &Report{max: cfg.MaxProblems},
		recs: index{}, lost: map[string][]lostAt{}, named: map[string]bool{}}
	if v.windows, err = loadWindows(ctx, st, keys, d, cfg.Tenant, cfg.Queue, cfg.Concurrency); err != nil {
		return Report{}, err
	}
	v.summarize()
	v.prog = newCounter(cfg.Progress, v.r.Objects, v.r.Bytes)
	v.checkObjects(ctx)
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	v.checkSequence()
	v.checkAcross()
	if err := v.checkOrphans(ctx); err != nil {
		return Report{}, err
	}
	if cfg.Broker != "" {
		if err := v.checkBroker(ctx); err != nil {
			return Report{}, err
		}
	}
	return *v.r, nil
}

// summarize fills the report's counts from the manifests.
func (v *verifier) summarize() {
	r := v.r
	first := true
	for _, w := range v.windows {
		m := w.Manifest
		if m == nil {
			continue
		}
		r.Windows++
		r.Objects += len(m.Objects)
		r.Records += m.Records
		r.Bytes += m.Bytes
		r.Lost += lostCount(m.Lost)
		if first {
			r.FirstTStart, r.FirstTEnd, first = m.TStart, m.TEnd, false
			v.sink = m.Sink
		}
		r.LastTEnd = m.TEnd
		v.lastK = max(v.lastK, w.K)
		for _, o := range m.Objects {
			v.named[o.Key] = true
		}
		for _, l := range m.Lost {
			v.lost[l.Partition] = append(v.lost[l.Partition], lostAt{from: l.From, to: l.To, k: m.K})
		}
	}
	v.t0, v.tn = r.FirstTStart, r.LastTEnd
}

// sortIndex sorts every partition's records by offset (stable, so equal
// offsets stay in window order).
func (v *verifier) sortIndex() {
	for _, rs := range v.recs {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].offset < rs[j].offset })
	}
}

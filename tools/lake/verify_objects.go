package lake

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/queen-mq/queen-go/lakeformat"
)

// windowResult is what checking one window's objects found.
type windowResult struct {
	problems []Problem
	recs     index
}

func (w *windowResult) add(c Check, k uint64, key, format string, args ...any) {
	w.problems = append(w.problems, Problem{Check: c, K: k, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// checkObjects reports the manifests that could not be read and checks
// every object of the others, cfg.Concurrency windows at a time, then
// merges what it found in k order.
func (v *verifier) checkObjects(ctx context.Context) {
	results := make([]windowResult, len(v.windows))
	parallel(len(v.windows), v.cfg.Concurrency, func(i int) {
		w := &v.windows[i]
		res := &results[i]
		res.recs = index{}
		if w.Err != nil {
			res.add(CheckManifest, w.K, w.Key, "%v", w.Err)
		}
		if w.Manifest != nil && ctx.Err() == nil {
			v.checkWindow(ctx, w.K, w.Manifest, res)
		}
	})
	for i := range results {
		for _, p := range results[i].problems {
			v.r.add(p.Check, p.K, p.Key, "%s", p.Msg)
		}
		for part, rs := range results[i].recs {
			v.recs[part] = append(v.recs[part], rs...)
		}
	}
}

// checkWindow checks the objects of m, and the manifest's sums over what
// they hold. k is the window's number from the manifest's key, which names
// the window in problems and in the index (a manifest that says another k
// is a manifest problem already).
func (v *verifier) checkWindow(ctx context.Context, k uint64, m *lakeformat.Manifest, res *windowResult) {
	if m.Layout == lakeformat.Merged && len(m.Objects) > 1 {
		res.add(CheckObject, k, "", "a merged window has %d objects, not one", len(m.Objects))
	}
	parts := map[string]bool{}
	var minTs, maxTs int64
	seen, whole := 0, true
	for i := range m.Objects {
		recs, ok := v.checkObject(ctx, k, m, &m.Objects[i], res)
		v.prog.object(m.Objects[i].Bytes)
		if !ok {
			whole = false
			continue
		}
		for _, rec := range recs {
			if seen == 0 {
				minTs, maxTs = rec.Ts, rec.Ts
			}
			seen++
			minTs, maxTs = min(minTs, rec.Ts), max(maxTs, rec.Ts)
			parts[rec.Partition] = true
		}
	}
	if !whole {
		return // the sums cannot be checked over objects that did not decode
	}
	if int64(len(parts)) != m.Partitions {
		res.add(CheckObject, k, "", "manifest says %d partitions, the objects hold %d", m.Partitions, len(parts))
	}
	if seen > 0 && m.MinTs != nil && (*m.MinTs != minTs || *m.MaxTs != maxTs) {
		res.add(CheckObject, k, "", "manifest says minTs %s, maxTs %s; the records span %s..%s",
			iso(*m.MinTs), iso(*m.MaxTs), iso(minTs), iso(maxTs))
	}
}

// checkObject checks one object of m: its key, existence, size, digest,
// and its records. It returns the records and true when the object
// decoded.
func (v *verifier) checkObject(ctx context.Context, k uint64, m *lakeformat.Manifest, o *lakeformat.ManifestObject, res *windowResult) ([]lakeformat.Record, bool) {
	bad := func(format string, args ...any) { res.add(CheckObject, k, o.Key, format, args...) }
	v.checkDataKey(m, o, bad)
	body, err := v.st.Get(ctx, o.Key)
	if isNotFound(err) {
		bad("missing: the manifest names it, the bucket does not hold it")
		return nil, false
	}
	if err != nil {
		bad("read: %v", err)
		return nil, false
	}
	if int64(len(body)) != o.Bytes {
		bad("%d bytes, the manifest says %d", len(body), o.Bytes)
	}
	if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != o.SHA256 {
		bad("sha256 %x, the manifest says %s", sum, o.SHA256)
	}
	recs, err := v.decode(m, body, bad)
	if err != nil {
		bad("does not decode as %v+%v: %v", m.Format, m.Codec, err)
		return nil, false
	}
	if int64(len(recs)) != o.Records {
		bad("%d records, the manifest says %d", len(recs), o.Records)
	}
	checkRecords(m, o, recs, bad)
	parquet := m.Format == lakeformat.Parquet
	for i := range recs {
		rec := &recs[i]
		lr := lakeRec{offset: rec.Offset, ts: rec.Ts, k: k, txn: rec.TransactionID}
		lr.line, lr.compact, lr.hasCompact = payloadDigests(rec.Payload, parquet)
		res.recs[rec.Partition] = append(res.recs[rec.Partition], lr)
	}
	return recs, true
}

// checkDataKey checks that o's key is the data key of m's window, format
// and layout, with o's partition and offsets in the per-partition layout.
func (v *verifier) checkDataKey(m *lakeformat.Manifest, o *lakeformat.ManifestObject, bad func(string, ...any)) {
	p, err := v.keys.Parse(o.Key)
	if err != nil {
		bad("key: %v", err)
		return
	}
	w := p.Window
	switch {
	case p.Kind != lakeformat.KindData:
		bad("key names a %v object, not data", p.Kind)
	case w.Tenant != v.cfg.Tenant || w.Queue != v.cfg.Queue:
		bad("key is of tenant %q, queue %q", w.Tenant, w.Queue)
	case w.K != m.K || w.TStart != m.TStart || w.TEnd != m.TEnd:
		bad("key is of window k %d [%d, %d), the manifest's is k %d [%d, %d)", w.K, w.TStart, w.TEnd, m.K, m.TStart, m.TEnd)
	case p.Format != m.Format || (p.Format == lakeformat.JSONL && p.Codec != m.Codec):
		bad("key's extension is not that of %v+%v", m.Format, m.Codec)
	case m.Layout == lakeformat.Merged && p.Part != nil:
		bad("a per-partition key in a merged window")
	case m.Layout == lakeformat.PerPartition && p.Part == nil:
		bad("a merged key in a per-partition window")
	case p.Part != nil && o.Partition != nil &&
		(p.Part.Partition != *o.Partition || p.Part.FirstOffset != *o.FirstOffset || p.Part.LastOffset != *o.LastOffset):
		bad("key names partition %q offsets %d..%d, the manifest %q offsets %d..%d",
			p.Part.Partition, p.Part.FirstOffset, p.Part.LastOffset, *o.Partition, *o.FirstOffset, *o.LastOffset)
	}
}

// decode reads the records of an object of m's format; for Parquet it
// also checks the footer's queue and tenant.
func (v *verifier) decode(m *lakeformat.Manifest, body []byte, bad func(string, ...any)) ([]lakeformat.Record, error) {
	if m.Format != lakeformat.Parquet {
		return lakeformat.Decode(body, m.Format, m.Codec)
	}
	pf, err := lakeformat.DecodeParquet(body)
	if err != nil {
		return nil, err
	}
	if pf.Queue != m.Queue || pf.Tenant != m.Tenant {
		bad("Parquet footer names tenant %q, queue %q", pf.Tenant, pf.Queue)
	}
	return pf.Records, nil
}

// checkRecords checks the records of one object: stamps in the window,
// sorted by partition then offset with no repeat, and in the
// per-partition layout the object's partition only, from its first to
// its last offset. Each kind of fault is reported once, with a count.
func checkRecords(m *lakeformat.Manifest, o *lakeformat.ManifestObject, recs []lakeformat.Record, bad func(string, ...any)) {
	var outside, unsorted, foreign int
	var firstOutside, firstUnsorted, firstForeign *lakeformat.Record
	for i := range recs {
		r := &recs[i]
		if r.Ts < m.TStart || r.Ts >= m.TEnd {
			if outside++; outside == 1 {
				firstOutside = r
			}
		}
		if i > 0 && !lakeformat.Less(&recs[i-1], r) {
			if unsorted++; unsorted == 1 {
				firstUnsorted = r
			}
		}
		if o.Partition != nil && r.Partition != *o.Partition {
			if foreign++; foreign == 1 {
				firstForeign = r
			}
		}
	}
	if outside > 0 {
		bad("%d records stamped outside the window [%s, %s), the first partition %q offset %d at %s",
			outside, iso(m.TStart), iso(m.TEnd), firstOutside.Partition, firstOutside.Offset, iso(firstOutside.Ts))
	}
	if unsorted > 0 {
		bad("%d records out of (partition, offset) order, the first partition %q offset %d",
			unsorted, firstUnsorted.Partition, firstUnsorted.Offset)
	}
	if foreign > 0 {
		bad("%d records of other partitions than %q, the first partition %q offset %d",
			foreign, *o.Partition, firstForeign.Partition, firstForeign.Offset)
	}
	if o.FirstOffset != nil && len(recs) > 0 {
		if first, last := recs[0].Offset, recs[len(recs)-1].Offset; first != *o.FirstOffset || last != *o.LastOffset {
			bad("offsets %d..%d, the manifest says %d..%d", first, last, *o.FirstOffset, *o.LastOffset)
		}
	}
}

// digest is a truncated SHA-256: enough to tell payloads apart.
type digest [16]byte

func sum(b []byte) digest {
	s := sha256.Sum256(b)
	return digest(s[:16])
}

// payloadDigests returns the digest of payload as a JSONL line renders it
// (valid JSON as is, raw line breaks as spaces; empty as null; anything
// else as a JSON string), and, for a Parquet payload that is valid JSON,
// the digest of its compacted text, so that it compares JSON-equal.
func payloadDigests(payload []byte, parquet bool) (line, compact digest, hasCompact bool) {
	line = sum(lakeformat.AppendLine(nil, &lakeformat.Record{Partition: "p", Payload: payload}))
	if parquet && len(payload) > 0 && json.Valid(payload) {
		var b bytes.Buffer
		if json.Compact(&b, payload) == nil {
			return line, sum(b.Bytes()), true
		}
	}
	return line, digest{}, false
}

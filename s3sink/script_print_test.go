package s3sink

// What the harness prints: the bucket, the KV rows, a node's status and
// metrics, and the comparison of two buckets.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
)

// bucket lists the objects, the records of data objects with them.
func (h *harness) bucket(t *testing.T, brief bool) string {
	keys, _ := lakeformat.NewKeys("queen")
	var b strings.Builder
	objs := h.snapshot()
	names := make([]string, 0, len(objs))
	for k := range objs {
		names = append(names, k)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "empty\n"
	}
	for _, key := range names {
		body := objs[key]
		sum := sha256.Sum256(body)
		fmt.Fprintf(&b, "%s %d B sha256:%s\n", key, len(body), hex.EncodeToString(sum[:8]))
		pk, err := keys.Parse(key)
		if err != nil || brief {
			continue
		}
		if pk.Kind == lakeformat.KindCheckpoint {
			c, err := lakeformat.DecodeCheckpoint(body)
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			fmt.Fprintf(&b, "  k=%d tEnd=%s", c.K, stamp(c.TEnd))
			for _, p := range c.Positions {
				fmt.Fprintf(&b, " %s:next=%d", p.Partition, p.NextOffset)
			}
			b.WriteString("\n")
		}
		if pk.Kind != lakeformat.KindData {
			continue
		}
		recs, err := lakeformat.Decode(body, pk.Format, pk.Codec)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if pk.Format == lakeformat.Parquet {
			pf, _ := lakeformat.DecodeParquet(body)
			fmt.Fprintf(&b, "  footer queen.queue=%q queen.tenant=%s, %d row groups\n", pf.Queue, pf.Tenant, pf.RowGroups)
		}
		for _, r := range recs {
			p := string(r.Payload)
			if p == "" {
				p = "null"
			} else if len(p) > 64 {
				p = fmt.Sprintf("%s… (%d B)", p[:12], len(p))
			}
			fmt.Fprintf(&b, "  %s/%d %s %s %s\n", r.Partition, r.Offset, stamp(r.Ts), r.TransactionID, p)
		}
	}
	return b.String()
}

func (h *harness) snapshot() map[string][]byte {
	h.w.store.mu.Lock()
	defer h.w.store.mu.Unlock()
	out := make(map[string][]byte, len(h.w.store.objs))
	for k, v := range h.w.store.objs {
		out[k] = v
	}
	return out
}

// compare says whether a bucket holds the same objects as a saved one:
// data objects byte for byte, manifests but for committedAt.
func (h *harness) compare(was, now map[string][]byte) string {
	keys, _ := lakeformat.NewKeys("queen")
	var b strings.Builder
	var data, manifests int
	for _, key := range sortedKeys(was, now) {
		a, inA := was[key]
		c, inC := now[key]
		switch {
		case !inA:
			fmt.Fprintf(&b, "new: %s\n", key)
			continue
		case !inC:
			fmt.Fprintf(&b, "missing: %s\n", key)
			continue
		}
		pk, _ := keys.Parse(key)
		if pk.Kind == lakeformat.KindManifest {
			a, c = dropCommittedAt(a), dropCommittedAt(c)
		}
		if !bytes.Equal(a, c) {
			fmt.Fprintf(&b, "differs: %s\n", key)
			continue
		}
		if pk.Kind == lakeformat.KindManifest {
			manifests++
		} else {
			data++
		}
	}
	fmt.Fprintf(&b, "the same: %d data objects byte for byte, %d manifests but for committedAt\n", data, manifests)
	return b.String()
}

func dropCommittedAt(b []byte) []byte {
	var lines [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if !bytes.Contains(l, []byte(`"committedAt"`)) {
			lines = append(lines, l)
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

func sortedKeys(ms ...map[string][]byte) []string {
	var out []string
	for _, m := range ms {
		for k := range m {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// kv lists the live rows: the sink's documents, their versions (the Nth
// write of the row), what is left of their TTLs, and their values with
// each incarnation named by its node's life.
func (h *harness) kv() string {
	kv := h.w.kv
	kv.mu.Lock()
	type row struct {
		key  string
		r    fakeRow
		gen  int64
		left time.Duration
	}
	var rows []row
	for key := range kv.rows {
		if r, ok := kv.live(key); ok {
			var left time.Duration
			if !r.expires.IsZero() {
				left = time.Until(r.expires)
			}
			_, k, _ := strings.Cut(key, "/")
			rows = append(rows, row{k, r, kv.gens[key], left})
		}
	}
	kv.mu.Unlock()
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.key, b.key) })
	var b strings.Builder
	for _, r := range rows {
		val := string(r.r.val)
		var doc leaseDoc
		if json.Unmarshal(r.r.val, &doc) == nil && doc.Incarnation != "" {
			val = strings.Replace(val, doc.Incarnation, h.label(doc.Incarnation), 1)
		}
		ttl := ""
		if r.left > 0 {
			ttl = " ttl=" + r.left.String()
		}
		fmt.Fprintf(&b, "%s v%d%s %s\n", r.key, r.gen, ttl, val)
	}
	if b.Len() == 0 {
		return "empty\n"
	}
	return b.String()
}

func (h *harness) status(n *hnode) string {
	r := n.e.Report(context.Background())
	var b strings.Builder
	giving := "-"
	if r.Placement.GivingBack != nil {
		giving = *r.Placement.GivingBack
	}
	fmt.Fprintf(&b, "%s ok=%v health=%v nodes=%d queues=%d share=%d held=%d givingBack=%s buffered=%d/%d\n", n.label, r.OK,
		healthString(r.Health), r.Placement.Nodes, r.Placement.Queues, r.Placement.Share, r.Placement.Held, giving,
		r.Memory.BufferedBytes, r.Memory.LimitBytes)
	for _, q := range r.Queues {
		held := "-"
		if q.HeldBy != nil {
			held = *q.HeldBy
		}
		lag := "-"
		if q.LagSeconds != nil {
			lag = strconv.FormatFloat(*q.LagSeconds, 'f', -1, 64) + "s"
		}
		fmt.Fprintf(&b, "  %s %s owned=%v heldBy=%s k=%d tEnd=%s complete=%s safe=%s lag=%s redo=%v buffered=%d partitions=%d windows=%d records=%d bytes=%d lost=%d\n",
			q.Name, q.State, q.OwnedHere, held, q.K, shortISO(q.TEnd), shortISO(q.CompleteThrough), shortISO(q.SafeTime), lag,
			q.Redo, q.BufferedBytes, q.Partitions, q.WindowsCommitted, q.Records, q.Bytes, q.RecordsLost)
		if q.LastError != nil {
			at := q.LastError.At
			fmt.Fprintf(&b, "    lastError %s %s\n", shortISO(&at), q.LastError.Message)
		}
	}
	return b.String()
}

func healthString(m map[string]any) string {
	if m["ok"] == true {
		return "ok"
	}
	return fmt.Sprintf("red(queue=%v staleMs=%v limitMs=%v)", m["queue"], m["staleMs"], m["limitMs"])
}

// metrics prints the node's series that are not zero; histograms by their
// counts.
func (h *harness) metrics(t *testing.T, n *hnode) string {
	n.e.Report(context.Background()) // sets the gauges
	mfs, err := n.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				if l.GetValue() != "" {
					labels = append(labels, l.GetName()+"="+l.GetValue())
				}
			}
			name := mf.GetName()
			var v float64
			switch {
			case m.Counter != nil:
				v = m.Counter.GetValue()
			case m.Gauge != nil:
				v = m.Gauge.GetValue()
			case m.Histogram != nil:
				name += "_count"
				v = float64(m.Histogram.GetSampleCount())
			}
			if v == 0 {
				continue
			}
			lines = append(lines, fmt.Sprintf("%s{%s} %s", name, strings.Join(labels, ","), strconv.FormatFloat(v, 'f', -1, 64)))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

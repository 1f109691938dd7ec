package s3sink

// The harness's side of the engines' calls: the broker log, KV store and
// bucket as each node sees them, through its gate (dead, frozen), with
// the failures scripts inject, and the trace of what the calls did.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
)

// hclock is the world's clock for an engine.
type hclock struct{ w *hworld }

func (c hclock) Now() time.Time                         { return time.Now().Add(-c.w.offset) }
func (c hclock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// hlog is the broker log as one node reads it.
type hlog struct{ n *hnode }

func (l hlog) Partitions(ctx context.Context, tenant, queue string, since int64, after string, limit int) (PartitionPage, error) {
	if err := l.n.gate("log partitions " + queue); err != nil {
		return PartitionPage{}, err
	}
	if err := l.n.w.failLog("partitions"); err != nil {
		l.n.h.event(l.n, "partitions %s -> error: %v", queue, err)
		return PartitionPage{}, err
	}
	if l.n.lag == 0 {
		return l.n.w.log.Partitions(ctx, tenant, queue, since, after, limit)
	}
	// A follower's view: what it applied, up to its safeTime.
	view := l.view()
	page, err := l.n.w.log.Partitions(ctx, tenant, queue, math.MinInt64, after, limit)
	page.SafeTime = view
	parts := page.Partitions[:0]
	for _, p := range page.Partitions {
		if last, write, ok := l.visible(tenant, queue, p.Name, view); ok && write >= since {
			p.LastOffset, p.LastWrite = last, write
			parts = append(parts, p)
		}
	}
	page.Partitions = parts
	return page, err
}

// view is the safeTime of a follower: the leader's, lag behind.
func (l hlog) view() int64 {
	st, _ := l.n.w.log.SafeTime(context.Background())
	return min(st, l.n.h.now().Add(-l.n.lag).UnixMicro())
}

// visible returns the last offset, and its stamp, of a partition's records
// stamped at or below view.
func (l hlog) visible(tenant, queue, part string, view int64) (last, write int64, ok bool) {
	l.n.w.log.mu.Lock()
	defer l.n.w.log.mu.Unlock()
	p := l.n.w.log.part(tenant, queue, part)
	last = p.logStart - 1
	for _, r := range p.recs {
		if r.Ts > view {
			break
		}
		last, write, ok = r.Offset, r.Ts, true
	}
	return last, write, ok
}

func (l hlog) Fetch(ctx context.Context, tenant, queue, partition string, offset int64, maxBytes int) (FetchResult, error) {
	if err := l.n.gate("log fetch " + queue + "/" + partition); err != nil {
		return FetchResult{}, err
	}
	if err := l.n.w.failLog("fetch"); err != nil {
		l.n.h.event(l.n, "fetch %s/%s at %d -> error: %v", queue, partition, offset, err)
		return FetchResult{}, err
	}
	res, err := l.n.w.log.Fetch(ctx, tenant, queue, partition, offset, maxBytes)
	if l.n.lag > 0 {
		view := l.view()
		recs := res.Records[:0]
		for _, r := range res.Records {
			if r.Ts <= view {
				recs = append(recs, r)
			}
		}
		res.Records = recs
		last, _, _ := l.visible(tenant, queue, partition, view)
		res.HighWatermark = min(res.HighWatermark, last+1)
	}
	if errors.Is(err, ErrOffsetOutOfRange) {
		l.n.h.event(l.n, "fetch %s/%s at %d -> below the log start %d", queue, partition, offset, res.LogStart)
	}
	return res, err
}

func (l hlog) OffsetAt(ctx context.Context, tenant, queue, partition string, ts int64) (int64, error) {
	if err := l.n.gate("log offsetAt " + queue + "/" + partition); err != nil {
		return 0, err
	}
	return l.n.w.log.OffsetAt(ctx, tenant, queue, partition, ts)
}

func (l hlog) Queues(ctx context.Context, tenant string) ([]string, error) {
	if err := l.n.gate("log queues"); err != nil {
		return nil, err
	}
	return l.n.w.log.Queues(ctx, tenant)
}

func (l hlog) SafeTime(ctx context.Context) (int64, error) {
	if err := l.n.gate("log safeTime"); err != nil {
		return 0, err
	}
	if l.n.lag > 0 {
		return l.view(), nil
	}
	return l.n.w.log.SafeTime(ctx)
}

// hkv is the KV store as one node calls it.
type hkv struct{ n *hnode }

// short drops the sink's part of a key: orders:lease, node=n1.
func short(key string) string {
	if rest, ok := strings.CutPrefix(key, "s3:default:"); ok {
		return rest
	}
	return key
}

func (k hkv) Get(ctx context.Context, tenant, ns string, keys []string) ([]Row, error) {
	what := make([]string, len(keys))
	for i, key := range keys {
		what[i] = short(key)
	}
	desc := "get " + strings.Join(what, ",")
	if err := k.n.gate("kv " + desc); err != nil {
		return nil, err
	}
	if err := k.n.stall(ctx); err != nil {
		k.n.h.event(k.n, "%s -> error: %v", desc, err)
		return nil, err
	}
	if fail, _, _ := k.n.w.failKV("get"); fail {
		k.n.h.event(k.n, "%s -> error: fake kv: no leader", desc)
		return nil, errors.New("fake kv: no leader")
	}
	rows, err := k.n.w.kv.Get(ctx, tenant, ns, keys)
	if err == nil {
		out := make([]string, len(rows))
		for i, r := range rows {
			out[i] = k.n.h.rowSummary(r)
		}
		k.n.h.event(k.n, "%s -> %s", desc, strings.Join(out, ", "))
	}
	return rows, err
}

// rowSummary is a short account of a row as a call read it.
func (h *harness) rowSummary(r Row) string {
	if !r.Found {
		return "none"
	}
	var d struct {
		K           *uint64         `json:"k"`
		Instance    string          `json:"instance"`
		Incarnation string          `json:"incarnation"`
		TEnd        json.RawMessage `json:"tEnd"`
	}
	json.Unmarshal(r.Value, &d)
	switch {
	case d.Incarnation != "":
		return h.label(d.Incarnation)
	case d.K != nil:
		return fmt.Sprintf("k=%d", *d.K)
	}
	return string(r.Value)
}

func (k hkv) Batch(ctx context.Context, tenant, ns string, ops []KVOp) (BatchResult, error) {
	desc, show := k.n.h.describe(k.n, tenant, ops)
	if err := k.n.gate("kv " + desc); err != nil {
		return BatchResult{}, err
	}
	if err := k.n.stall(ctx); err != nil {
		if show != showNever {
			k.n.h.event(k.n, "%s -> error: %v", desc, err)
		}
		return BatchResult{}, err
	}
	fail, applied, late := k.n.w.failKV("batch")
	if fail && late > 0 {
		k.n.h.event(k.n, "%s -> error: fake kv: timeout, applies %v later", desc, late)
		w := k.n.w
		go func() {
			time.Sleep(late)
			res, _ := w.kv.Batch(context.Background(), tenant, ns, ops)
			k.n.h.event(k.n, "%s: the late write applied (ok=%v)", desc, res.OK)
		}()
		return BatchResult{}, errors.New("fake kv: timeout")
	}
	if fail && !applied {
		k.n.h.event(k.n, "%s -> error: fake kv: timeout, not applied", desc)
		return BatchResult{}, errors.New("fake kv: timeout")
	}
	res, err := k.n.w.kv.Batch(ctx, tenant, ns, ops)
	if fail {
		k.n.h.event(k.n, "%s -> error: fake kv: timeout, applied (ok=%v)", desc, res.OK)
		return BatchResult{}, errors.New("fake kv: timeout")
	}
	if err != nil {
		return res, err
	}
	out := "ok"
	if !res.OK {
		out = fmt.Sprintf("FAILED at %s (%s)", short(ops[res.FailedIndex].Key), k.n.w.failReason(tenant, ops[res.FailedIndex]))
	} else if len(ops) == 1 && !res.Results[0].Applied {
		r := res.Results[0]
		out = "not applied (" + r.Reason + ")"
		if r.Reason == "exists" && strings.HasSuffix(ops[0].Key, ":lease") {
			out = "held by " + k.n.h.rowSummary(Row{Found: true, Value: r.Value})
		}
	}
	switch show {
	case showAlways:
		k.n.h.event(k.n, "%s -> %s", desc, out)
	case showChanged:
		if k.n.h.changed(k.n.label+" "+desc, out) || out == "ok" {
			k.n.h.event(k.n, "%s -> %s", desc, out)
		}
	case showFailed:
		if out != "ok" {
			k.n.h.event(k.n, "%s -> %s", desc, out)
		}
	}
	return res, err
}

// failReason says why a required op of a batch found its row changed.
func (w *hworld) failReason(tenant string, op KVOp) string {
	w.kv.mu.Lock()
	defer w.kv.mu.Unlock()
	r, ok := w.kv.live(tenant + "/" + op.Key)
	switch {
	case op.Kind == KVPutIfAbsent && ok, op.Expect != nil && *op.Expect == 0 && ok:
		return "exists"
	case !ok:
		return "absent"
	case op.Expect != nil && r.version != *op.Expect:
		return "moved"
	}
	return "?"
}

type showWhen int

const (
	showAlways  showWhen = iota
	showChanged          // when it applied, or its answer changed from the last one shown
	showFailed           // only when it failed
	showNever
)

// describe names a batch by what the engine means by it.
func (h *harness) describe(n *hnode, tenant string, ops []KVOp) (string, showWhen) {
	var parts []string
	what := func(op KVOp) (queue, doc string) {
		s := short(op.Key)
		if i := strings.LastIndexByte(s, ':'); i >= 0 {
			return s[:i], s[i+1:]
		}
		return "", s
	}
	q0, d0 := what(ops[0])
	switch {
	case len(ops) == 1 && strings.HasPrefix(d0, "node="):
		if ops[0].Kind == KVDelete {
			return "leave " + d0, showAlways
		}
		return "presence " + d0, showNever
	case len(ops) == 1 && d0 == "lease" && ops[0].Kind == KVPutIfAbsent:
		return "claim " + q0, showChanged
	case len(ops) == 1 && d0 == "lease" && ops[0].Kind == KVDelete:
		return "release " + q0, showAlways
	case len(ops) == 1 && d0 == "lease" && ops[0].Kind == KVPut:
		// A take-over when the row is another life's, else a refresh.
		n.w.kv.mu.Lock()
		r, ok := n.w.kv.live(tenant + "/" + ops[0].Key)
		n.w.kv.mu.Unlock()
		var doc leaseDoc
		if ok && json.Unmarshal(r.val, &doc) == nil && doc.Instance == n.e.node.Instance && doc.Incarnation != n.e.incarnation {
			return "take over " + q0 + " from " + h.label(doc.Incarnation), showAlways
		}
		return "refresh " + q0, showFailed
	}
	for i, op := range ops {
		q, doc := what(op)
		if i == 0 && doc == "lease" && len(ops) > 1 {
			continue // the fence
		}
		if at := strings.Index(short(op.Key), ":lost:"); at >= 0 && op.Kind == KVDelete {
			parts = append(parts, "drop lost note "+short(op.Key)[:at]+" k="+doc)
			continue
		}
		switch doc {
		case "start":
			var d startDoc
			json.Unmarshal(op.Value, &d)
			at := "the first record"
			if d.TStart >= 0 {
				at = stamp(d.TStart)
			}
			parts = append(parts, fmt.Sprintf("start %s %s at %s", q, d.Start, at))
		case "intent":
			var in intentDoc
			json.Unmarshal(op.Value, &in)
			// Only the queue's own goroutine writes an intent: it may
			// read why the window closed.
			why := ""
			name, _ := lakeformat.UnescapeName(q)
			if t := n.task(name); t != nil {
				why = " " + string(t.closeWhy)
			}
			parts = append(parts, fmt.Sprintf("intent %s k=%d [%s, %s)%s", q, in.K, stamp(in.TStart), stamp(in.TEnd), why))
		case "committed":
			var c committedDoc
			json.Unmarshal(op.Value, &c)
			parts = append(parts, fmt.Sprintf("commit %s k=%d records=%d", q, c.K, c.Records))
		default:
			parts = append(parts, fmt.Sprintf("op%d %s", op.Kind, short(op.Key)))
		}
	}
	if ops[0].Expect != nil && strings.HasSuffix(ops[0].Key, ":lease") {
		return "lease+" + strings.Join(parts, " + "), showAlways
	}
	return strings.Join(parts, " + "), showAlways
}

func (k hkv) Prefix(ctx context.Context, tenant, ns, prefix, after string, limit int) ([]Row, string, error) {
	if err := k.n.gate("kv prefix " + prefix); err != nil {
		return nil, "", err
	}
	if err := k.n.stall(ctx); err != nil {
		return nil, "", err
	}
	return k.n.w.kv.Prefix(ctx, tenant, ns, prefix, after, limit)
}

// hstore is the bucket as one node writes it.
type hstore struct{ n *hnode }

func (s hstore) put(ctx context.Context, key string, body []byte, multipart bool) error {
	if err := s.n.gate("store put " + key); err != nil {
		return err
	}
	how := "put"
	if multipart {
		how = "put multipart"
	}
	if err := s.n.w.failStore(); err != nil {
		s.n.h.event(s.n, "%s %s -> error: %v", how, key, err)
		return err
	}
	s.n.h.event(s.n, "%s %s (%d B)", how, key, len(body))
	return s.n.w.store.Put(ctx, key, body)
}

func (s hstore) Put(ctx context.Context, key string, body []byte) error {
	return s.put(ctx, key, body, false)
}

func (s hstore) PutMultipart(ctx context.Context, key string, body []byte, _ int) error {
	return s.put(ctx, key, body, true)
}

func (s hstore) Get(ctx context.Context, key string) ([]byte, error) {
	if err := s.n.gate("store get " + key); err != nil {
		return nil, err
	}
	b, err := s.n.w.store.Get(ctx, key)
	if err != nil {
		s.n.h.event(s.n, "get %s -> %v", key, err)
	} else {
		s.n.h.event(s.n, "get %s -> %d B", key, len(b))
	}
	return b, err
}

func (s hstore) Head(ctx context.Context, key string) (int64, error) {
	if err := s.n.gate("store head " + key); err != nil {
		return 0, err
	}
	return s.n.w.store.Head(ctx, key)
}

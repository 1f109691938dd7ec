package s3sink

import (
	"context"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
)

// Report is one sink's part of GET /status (SINK-CONFIG.md §6).
type Report struct {
	OK          bool           `json:"ok"`
	Tenant      string         `json:"tenant"`
	Sink        string         `json:"sink"`
	Instance    string         `json:"instance"`
	Version     string         `json:"version"`
	Running     bool           `json:"running"`
	Bucket      BucketReport   `json:"bucket"`
	Format      string         `json:"format"`
	Compression string         `json:"compression"`
	Layout      string         `json:"layout"`
	Align       string         `json:"align"`
	Health      map[string]any `json:"health"`
	Placement   struct {
		Nodes      int     `json:"nodes"`
		Queues     int     `json:"queues"`
		Share      int     `json:"share"`
		Held       int     `json:"held"`
		GivingBack *string `json:"givingBack"`
	} `json:"placement"`
	Memory struct {
		BufferedBytes int64 `json:"bufferedBytes"`
		LimitBytes    int64 `json:"limitBytes"`
	} `json:"memory"`
	Queues []QueueReport `json:"queues"`
}

// BucketReport says whether the bucket answered the sink's probe.
type BucketReport struct {
	Reachable *bool   `json:"reachable"`
	Error     *string `json:"error"`
	CheckedAt *string `json:"checkedAt"`
	Name      string  `json:"name"`
	Endpoint  string  `json:"endpoint"`
	Region    string  `json:"region"`
	Prefix    string  `json:"prefix"`
}

// QueueReport is one queue's row.
type QueueReport struct {
	Name             string      `json:"name"`
	OwnedHere        bool        `json:"ownedHere"`
	HeldBy           *string     `json:"heldBy"`
	State            State       `json:"state"`
	K                uint64      `json:"k"`
	TEnd             *string     `json:"tEnd"`
	CompleteThrough  *string     `json:"completeThrough"`
	SafeTime         *string     `json:"safeTime"`
	LagSeconds       *float64    `json:"lagSeconds"`
	Redo             bool        `json:"redo"`
	BufferedBytes    int64       `json:"bufferedBytes"`
	Partitions       int         `json:"partitions"`
	WindowsCommitted int64       `json:"windowsCommitted"`
	Records          int64       `json:"records"`
	Bytes            int64       `json:"bytes"`
	RecordsLost      int64       `json:"recordsLost"`
	LastError        *ErrorEntry `json:"lastError"`
}

// ErrorEntry is a queue's last error, kept until a newer one replaces it.
type ErrorEntry struct {
	At      string `json:"at"`
	Message string `json:"message"`
}

func iso(us int64) *string {
	if us <= 0 {
		return nil
	}
	s := lakeformat.FormatTs(us)
	return &s
}

// Report returns the sink's report, and sets each running queue's gauges.
func (e *Engine) Report(ctx context.Context) Report {
	r := Report{Tenant: e.tenant, Sink: e.set.Sink, Instance: e.node.Instance, Version: Version, Running: true,
		Format: e.set.Format.String(), Compression: e.set.Codec().String(), Layout: e.set.Layout.String(), Align: e.set.Align.String()}
	r.Bucket = e.bucketReport()
	r.Memory.BufferedBytes, r.Memory.LimitBytes = e.mem.Buffered()
	r.Placement.Share, r.Placement.Held = e.share(), e.held()
	e.mu.Lock()
	r.Placement.Nodes, r.Placement.Queues = e.nodes, len(e.queues)
	if e.giving != "" {
		g := e.giving
		r.Placement.GivingBack = &g
	}
	tasks := make([]*queueTask, 0, len(e.queues))
	for _, n := range e.queues {
		tasks = append(tasks, e.tasks[n])
	}
	e.mu.Unlock()
	limit := max(3*e.set.MaxWindow, 30*time.Second)
	r.Health = map[string]any{"ok": true, "queues": len(tasks)}
	// The lag is the broker's clock now minus what the lake holds, whether
	// the queue is filling or stuck in its commit steps.
	now, _ := e.logs.SafeTime(ctx)
	for _, q := range tasks {
		qr := q.report(e, now)
		r.Queues = append(r.Queues, qr)
		if qr.OwnedHere && qr.LagSeconds != nil && time.Duration(*qr.LagSeconds*float64(time.Second)) > limit && r.Health["ok"] == true {
			r.Health = map[string]any{"ok": false, "queue": qr.Name, "staleMs": int64(*qr.LagSeconds * 1000), "limitMs": limit.Milliseconds()}
		}
	}
	r.OK = r.Health["ok"] == true && (r.Bucket.Reachable == nil || *r.Bucket.Reachable)
	return r
}

// report is the queue's row, with safeTime the node's now (µs; 0 when
// unknown). A queue is owned here while it runs and its lease has not run
// out: a node whose refreshes go unanswered stops saying so at the end of
// the lease, before another node can claim it.
func (q *queueTask) report(e *Engine, safeTime int64) QueueReport {
	now := e.now()
	q.mu.Lock()
	defer q.mu.Unlock()
	owned := running(q.state) && now.Before(q.leaseUntil)
	if running(q.state) && !owned {
		e.metrics.forget(e.tenant, q.queue) // a lapsed lease exports nothing
	}
	r := QueueReport{Name: q.queue, State: q.state, OwnedHere: owned, Redo: q.st.redo,
		WindowsCommitted: q.st.windowsCommitted, Records: q.st.records, Bytes: q.st.bytes, RecordsLost: q.st.recordsLost,
		BufferedBytes: e.mem.of(q), Partitions: q.st.partitions, K: q.st.k, TEnd: iso(q.st.tEnd)}
	if q.holder != "" {
		h := q.holder
		r.HeldBy = &h
	}
	if q.st.lastError != nil {
		r.LastError = &ErrorEntry{At: q.st.lastError.At.UTC().Format("2006-01-02T15:04:05.000000Z"), Message: q.st.lastError.Message}
	}
	if st := max(q.st.safeTime, safeTime); r.OwnedHere && q.st.safeTime > 0 {
		r.SafeTime, r.CompleteThrough = iso(st), iso(q.st.completeThrough)
		lag := float64(max(st-q.st.completeThrough, 0)) / 1e6
		r.LagSeconds = &lag
		safeLag := lag + max(e.now().Sub(time.UnixMicro(st)).Seconds(), 0)
		e.metrics.gauges(e.tenant, q.queue, lag, safeLag, r.BufferedBytes, q.st.ckptAge)
	}
	return r
}

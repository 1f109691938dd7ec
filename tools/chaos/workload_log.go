package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos/check"
)

// logWorkload pushes records with transaction ids from several writers,
// each through a node of its choosing, retrying an unanswered push with
// the same id (as a client does: dedup makes it exactly once), and keeps
// the history: what each push was answered.
type logWorkload struct {
	c          *Cluster
	queue      string
	partitions []string
	writers    int
	// pause, when set, is how long a writer waits after each push.
	pause time.Duration

	history history[check.Push]
	refusalCounter
}

type pushAnswer struct {
	Status string `json:"status"`
	Offset int64  `json:"offset"`
	Error  string `json:"error"`
}

// run pushes until ctx ends; writer w's k-th push has transaction id
// "w<w>-<k>" and payload {"w":w,"k":k}.
func (l *logWorkload) run(ctx context.Context, seed uint64) {
	untilDone(ctx, l.writers, seed, 0, func(w, k int, r *rand.Rand) {
		p := check.Push{Queue: l.queue, Partition: l.partitions[r.IntN(len(l.partitions))], TxnID: fmt.Sprintf("w%d-%d", w, k),
			Payload: fmt.Appendf(nil, `{"w":%d,"k":%d}`, w, k)}
		l.push(ctx, r, &p)
		l.history.add(p)
		if l.pause > 0 {
			sleep(ctx, l.pause)
		}
	})
}

// push sends p through random running nodes until one answers it stored,
// or ctx ends (p stays unacked: it may or may not be in the log). A 507
// storage_full before any attempt went unanswered is a definite refusal:
// p is Refused, and the writer moves on.
func (l *logWorkload) push(ctx context.Context, r *rand.Rand, p *check.Push) {
	unanswered := false
	for ctx.Err() == nil {
		n := l.c.Nodes[r.IntN(len(l.c.Nodes))]
		if !n.Running() {
			sleep(ctx, 10*time.Millisecond)
			continue
		}
		var out []pushAnswer
		body := map[string]any{"items": []map[string]any{{"queue": p.Queue, "partition": p.Partition, "transactionId": p.TxnID,
			"payload": json.RawMessage(p.Payload)}}}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		code, err := n.Call(pctx, http.MethodPost, "/api/v1/push", body, &out)
		cancel()
		if err == nil && code == http.StatusCreated && len(out) == 1 && out[0].Error == "" {
			p.Acked, p.Offset, p.Duplicate = true, out[0].Offset, out[0].Status == "duplicate"
			return
		}
		if code == http.StatusInsufficientStorage {
			l.n.Add(1)
			if !unanswered {
				p.Refused = true
				sleep(ctx, 50*time.Millisecond) // as a client backs off
				return
			}
		} else {
			unanswered = true
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// finish waits until every node shows the same high watermarks, reads
// every node's whole log and checks it against the history.
func (l *logWorkload) finish(ctx context.Context) (ops, answered int, anomalies []check.Anomaly, err error) {
	if err := converge(ctx, l.c, l.queue, l.partitions, 60*time.Second); err != nil {
		return 0, 0, nil, err
	}
	logs, err := l.logs(ctx)
	if err != nil {
		return 0, 0, nil, err
	}
	return len(l.history.ops), l.history.answered(func(p check.Push) bool { return p.Acked }), check.CheckLog(l.history.ops, logs), nil
}

// converge waits until every node shows the same high watermark on every
// partition of queue: the log has reached them all.
func converge(ctx context.Context, c *Cluster, queue string, partitions []string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last []map[string]int64
	for time.Now().Before(deadline) {
		last = last[:0]
		same := true
		for _, n := range c.Nodes {
			h, err := highWatermarks(ctx, n, queue, partitions)
			if err != nil {
				same = false
				break
			}
			if len(last) > 0 && fmt.Sprint(h) != fmt.Sprint(last[0]) {
				same = false
			}
			last = append(last, h)
		}
		if same && len(last) == len(c.Nodes) {
			return nil
		}
		if !sleep(ctx, 200*time.Millisecond) {
			return ctx.Err()
		}
	}
	return fmt.Errorf("the nodes did not converge within %s: high watermarks %v", timeout, last)
}

// logs reads every partition of the queue from every node, after the
// nodes caught up with the highest high watermark any of them shows.
func (l *logWorkload) logs(ctx context.Context) (map[string][]check.Record, error) {
	out := map[string][]check.Record{}
	for _, n := range l.c.Nodes {
		for _, part := range l.partitions {
			recs, err := fetchAll(ctx, n, l.queue, part)
			if err != nil {
				return nil, fmt.Errorf("node %d: %w", n.ID, err)
			}
			key := fmt.Sprintf("node%d", n.ID)
			out[key] = append(out[key], recs...)
		}
	}
	return out, nil
}

type fetchEntry struct {
	Records []struct {
		Offset        int64           `json:"offset"`
		TransactionID string          `json:"transactionId"`
		Payload       json.RawMessage `json:"payload"`
		TS            string          `json:"ts"`
	} `json:"records"`
	HighWatermark int64  `json:"highWatermark"`
	Error         string `json:"error"`
}

// fetchAll reads a partition from offset 0 to its end on n.
func fetchAll(ctx context.Context, n *Node, queue, partition string) ([]check.Record, error) {
	var recs []check.Record
	for off := int64(0); ; {
		e, err := fetchPage(ctx, n, queue, partition, off)
		if err != nil {
			return nil, err
		}
		if e.Error != "" {
			return recs, nil // a partition no push reached: no records
		}
		for _, r := range e.Records {
			recs = append(recs, check.Record{Queue: queue, Partition: partition, TxnID: r.TransactionID, Offset: r.Offset, Payload: r.Payload})
		}
		if len(e.Records) == 0 || off+int64(len(e.Records)) >= e.HighWatermark {
			return recs, nil
		}
		off += int64(len(e.Records))
	}
}

// fetchPage reads a partition on n from offset off, up to 8 MiB.
func fetchPage(ctx context.Context, n *Node, queue, partition string, off int64) (fetchEntry, error) {
	var out struct{ Entries []fetchEntry }
	_, err := n.Call(ctx, http.MethodPost, "/api/v1/fetch", map[string]any{"entries": []map[string]any{
		{"queue": queue, "partition": partition, "offset": off, "maxBytes": 8 << 20}}}, &out)
	if err != nil {
		return fetchEntry{}, err
	}
	if len(out.Entries) != 1 {
		return fetchEntry{}, fmt.Errorf("fetch %s/%s answered %d entries", queue, partition, len(out.Entries))
	}
	return out.Entries[0], nil
}

// highWatermarks is the high watermark of each partition on n.
func highWatermarks(ctx context.Context, n *Node, queue string, partitions []string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, part := range partitions {
		var got struct{ Entries []fetchEntry }
		if _, err := n.Call(ctx, http.MethodPost, "/api/v1/fetch", map[string]any{"entries": []map[string]any{
			{"queue": queue, "partition": part, "offset": 0, "maxBytes": 1}}}, &got); err != nil {
			return nil, err
		}
		if len(got.Entries) == 1 {
			out[part] = got.Entries[0].HighWatermark
		}
	}
	return out, nil
}

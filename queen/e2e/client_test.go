package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

type pushItem struct {
	Queue         string          `json:"queue"`
	Partition     string          `json:"partition,omitempty"`
	Payload       json.RawMessage `json:"payload"`
	TransactionID string          `json:"transactionId,omitempty"`
}

type pushAnswer struct {
	Index         int    `json:"index"`
	MessageID     string `json:"message_id"`
	TransactionID string `json:"transaction_id"`
	Queue         string `json:"queueName"`
	Status        string `json:"status"`
	Offset        int64  `json:"offset"`
}

type fetchRecord struct {
	Offset        int64           `json:"offset"`
	TransactionID string          `json:"transactionId"`
	Payload       json.RawMessage `json:"payload"`
	Ts            string          `json:"ts"`
}

type fetchEntry struct {
	Queue          string        `json:"queue"`
	Partition      string        `json:"partition"`
	Records        []fetchRecord `json:"records"`
	HighWatermark  int64         `json:"highWatermark"`
	LogStartOffset int64         `json:"logStartOffset"`
	Error          string        `json:"error"`
}

// push pushes items through n and answers the items' answers (201).
// When every item has a transaction id, a 503 (its outcome unknown: an
// election at start can drop a proposal) is asked again with the same
// ids until ctx ends, as a client does: deduplication makes the retry
// exactly once.
func (n *node) push(ctx context.Context, items ...pushItem) ([]pushAnswer, error) {
	retry := true
	for _, it := range items {
		retry = retry && it.TransactionID != ""
	}
	for {
		var out []pushAnswer
		code, err := n.call(ctx, http.MethodPost, "/api/v1/push", map[string]any{"items": items}, &out)
		if code == http.StatusServiceUnavailable && retry && ctx.Err() == nil {
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		if err == nil && code != http.StatusCreated {
			err = fmt.Errorf("push answered %d, want 201", code)
		}
		return out, err
	}
}

// fetchAll reads a partition from offset 0 to its end on this node.
func (n *node) fetchAll(ctx context.Context, queue, partition string) ([]fetchRecord, int64, error) {
	var recs []fetchRecord
	for off := int64(0); ; {
		var out struct{ Entries []fetchEntry }
		_, err := n.call(ctx, http.MethodPost, "/api/v1/fetch", map[string]any{"entries": []map[string]any{
			{"queue": queue, "partition": partition, "offset": off, "maxBytes": 8 << 20}}}, &out)
		if err != nil {
			return nil, 0, err
		}
		e := out.Entries[0]
		if e.Error != "" {
			return nil, 0, fmt.Errorf("fetch %s/%s at %d: %s", queue, partition, off, e.Error)
		}
		recs = append(recs, e.Records...)
		if len(e.Records) == 0 || off+int64(len(e.Records)) >= e.HighWatermark {
			return recs, e.HighWatermark, nil
		}
		off += int64(len(e.Records))
	}
}

// waitHighWatermark waits, with fetch's own long poll, until the node holds
// a partition's records up to hwm.
func (n *node) waitHighWatermark(ctx context.Context, queue, partition string, hwm int64) error {
	for {
		var out struct{ Entries []fetchEntry }
		_, err := n.call(ctx, http.MethodPost, "/api/v1/fetch", map[string]any{"maxWaitMs": 2000, "entries": []map[string]any{
			{"queue": queue, "partition": partition, "offset": max(hwm-1, 0), "maxBytes": 1}}}, &out)
		if err == nil && len(out.Entries) == 1 && out.Entries[0].HighWatermark >= hwm {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("node %d never reached offset %d of %s/%s: %v", n.id, hwm, queue, partition, err)
		}
	}
}

// producer pushes records with transaction ids, retrying each push with the
// same ids on any node until one answers: the acked ids are what the test
// may expect to find exactly once.
type producer struct {
	mu    sync.Mutex
	acked map[string]string // transactionId → partition
}

func newProducer() *producer { return &producer{acked: map[string]string{}} }

// produce runs loop (a producer's run or runBinary) in workers goroutines,
// each given its worker number, until the stop it returns, which cancels
// their context and waits for them.
func produce(workers int, loop func(ctx context.Context, worker int)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() { defer wg.Done(); loop(ctx, w) }()
	}
	return func() { cancel(); wg.Wait() }
}

func (p *producer) run(ctx context.Context, t testing.TB, nodes func() []*node, worker, partitions int) {
	for i := 0; ctx.Err() == nil; i++ {
		items := []pushItem{}
		for j := 0; j < 3; j++ {
			part := fmt.Sprintf("p-%d", (worker+i+j)%partitions)
			txid := fmt.Sprintf("w%d-%d-%d", worker, i, j)
			items = append(items, pushItem{Queue: "orders", Partition: part, TransactionID: txid,
				Payload: json.RawMessage(fmt.Sprintf(`{"w":%d,"i":%d,"j":%d,"total":42.00}`, worker, i, j))})
		}
		var txids, parts []string
		for _, it := range items {
			txids, parts = append(txids, it.TransactionID), append(parts, it.Partition)
		}
		send := func(n *node) ([]pushAnswer, error) {
			pctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			return n.push(pctx, items...)
		}
		if !p.deliver(ctx, t, nodes, worker, txids, parts, send, func(attempt int) bool { return attempt > 400 }) {
			return
		}
	}
}

// deliver sends one push with send to the nodes in turn, worker's first,
// until one answers, and records the answer: txids[k] acked on parts[k].
// Between attempts it backs off 20 ms, as a client should; nodes may be
// none for a while (all down). It fails the test and answers false once
// giveUp(attempt) says so, and answers false quietly once ctx is done and
// 50 attempts are past: the run is over and the push could not be placed,
// so nothing of it is acked.
func (p *producer) deliver(ctx context.Context, t testing.TB, nodes func() []*node, worker int, txids, parts []string,
	send func(*node) ([]pushAnswer, error), giveUp func(attempt int) bool) bool {
	var last error
	for attempt := 0; ; attempt++ {
		if ns := nodes(); len(ns) > 0 {
			ans, err := send(ns[(worker+attempt)%len(ns)])
			if err == nil {
				p.mu.Lock()
				for k, a := range ans {
					if a.Status != "queued" && a.Status != "duplicate" {
						t.Errorf("push answered status %q for %s", a.Status, txids[k])
					}
					p.acked[txids[k]] = parts[k]
				}
				p.mu.Unlock()
				return true
			}
			last = err
		}
		if giveUp(attempt) {
			t.Errorf("push of %s never succeeded: %v", txids[0], last)
			return false
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			if attempt > 50 {
				return false
			}
		}
	}
}

// checkExactlyOnce reads every partition from every node and checks that
// each is gapless from offset 0, that all nodes hold the same records, and
// that every acked id is there exactly once.
func checkExactlyOnce(t *testing.T, nodes []*node, p *producer, partitions int) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	seen := map[string]int{}
	for part := 0; part < partitions; part++ {
		name := fmt.Sprintf("p-%d", part)
		// The producers have stopped: the greatest high watermark any node
		// shows is the partition's end, and every node must reach it.
		var end int64
		for _, n := range nodes {
			_, hwm, err := n.fetchAll(ctx, "orders", name)
			if err != nil {
				t.Fatalf("node %d: %v", n.id, err)
			}
			end = max(end, hwm)
		}
		var ref []fetchRecord
		for _, n := range nodes {
			if err := n.waitHighWatermark(ctx, "orders", name, end); err != nil {
				t.Fatal(err)
			}
			recs, hwm, err := n.fetchAll(ctx, "orders", name)
			if err != nil {
				t.Fatalf("node %d: %v", n.id, err)
			}
			for i, r := range recs {
				if r.Offset != int64(i) {
					t.Fatalf("node %d %s: record %d has offset %d: a gap", n.id, name, i, r.Offset)
				}
			}
			if int64(len(recs)) != hwm {
				t.Fatalf("node %d %s: %d records, high watermark %d", n.id, name, len(recs), hwm)
			}
			if ref == nil {
				ref = recs
				continue
			}
			if len(recs) != len(ref) {
				t.Fatalf("node %d %s holds %d records, node %d %d", n.id, name, len(recs), nodes[0].id, len(ref))
			}
			for i := range recs {
				a, b := recs[i], ref[i]
				if a.TransactionID != b.TransactionID || string(a.Payload) != string(b.Payload) || a.Ts != b.Ts {
					t.Fatalf("node %d %s offset %d is %+v, node %d has %+v", n.id, name, i, a, nodes[0].id, b)
				}
			}
		}
		for _, r := range ref {
			seen[r.TransactionID]++
			if !strings.Contains(string(r.Payload), `"total":42.00`) {
				t.Errorf("payload %s lost its bytes", r.Payload)
			}
		}
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("transaction %s is in the log %d times", id, c)
		}
	}
	for id := range p.acked {
		if seen[id] != 1 {
			t.Errorf("acked transaction %s is in the log %d times, want 1", id, seen[id])
		}
	}
	t.Logf("%d acked records, %d in the log, checked on %d nodes", len(p.acked), len(seen), len(nodes))
}

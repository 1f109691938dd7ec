package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
)

// call sends body (raw JSON; a GET when nil) and decodes a 2xx answer into
// out.
func (n *queenNode) call(method, path string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, n.url+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("content-type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: %w: %.300s", method, path, err, raw)
		}
	}
	return nil
}

// push pushes items in one request and checks that each was queued.
func (n *queenNode) push(items []item) error {
	var out []struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Offset *int64 `json:"offset"`
	}
	if err := n.call(http.MethodPost, "/api/v1/push", pushBody(items), &out); err != nil {
		return err
	}
	if len(out) != len(items) {
		return fmt.Errorf("push of %d items answered %d", len(items), len(out))
	}
	for i, a := range out {
		if a.Status != "queued" || a.Offset == nil {
			return fmt.Errorf("push of %s/%s answered %+v", items[i].Queue, items[i].Partition, a)
		}
	}
	return nil
}

// safeTime is the node's safeTime (the greatest stamp it applied), from
// POST /api/v1/partitions/changed with no entries.
func (n *queenNode) safeTime() (int64, error) {
	var out struct {
		SafeTime string `json:"safeTime"`
	}
	if err := n.call(http.MethodPost, "/api/v1/partitions/changed", []byte(`{"entries":[]}`), &out); err != nil {
		return 0, err
	}
	t, err := time.Parse(time.RFC3339Nano, out.SafeTime)
	if err != nil {
		return 0, fmt.Errorf("safeTime %q: %w", out.SafeTime, err)
	}
	return t.UnixMicro(), nil
}

// fetched is one record as POST /api/v1/fetch answers it.
type fetched struct {
	Offset        int64           `json:"offset"`
	TransactionID string          `json:"transactionId"`
	Payload       json.RawMessage `json:"payload"`
	Ts            string          `json:"ts"`
}

// fetchAll reads a partition from offset 0 to its end.
func (n *queenNode) fetchAll(queue, partition string) ([]fetched, error) {
	var recs []fetched
	for off := int64(0); ; {
		body, _ := json.Marshal(map[string]any{"entries": []map[string]any{
			{"queue": queue, "partition": partition, "offset": off, "maxBytes": 8 << 20}}})
		var out struct {
			Entries []struct {
				Records       []fetched `json:"records"`
				HighWatermark int64     `json:"highWatermark"`
				Error         string    `json:"error"`
			} `json:"entries"`
		}
		if err := n.call(http.MethodPost, "/api/v1/fetch", body, &out); err != nil {
			return nil, err
		}
		if len(out.Entries) != 1 {
			return nil, fmt.Errorf("fetch %s/%s answered %d entries", queue, partition, len(out.Entries))
		}
		e := out.Entries[0]
		if e.Error != "" {
			return nil, fmt.Errorf("fetch %s/%s at %d: %s", queue, partition, off, e.Error)
		}
		recs = append(recs, e.Records...)
		if len(e.Records) == 0 || off+int64(len(e.Records)) >= e.HighWatermark {
			return recs, nil
		}
		off += int64(len(e.Records))
	}
}

// sinkRow is a queue's row in the s3 block of GET /status.
type sinkRow struct {
	Name            string  `json:"name"`
	State           string  `json:"state"`
	CompleteThrough *string `json:"completeThrough"`
	LastError       any     `json:"lastError"`
}

// sinkRows returns the rows of the node's one sink (the default tenant's).
func (n *queenNode) sinkRows() (map[string]sinkRow, error) {
	var st struct {
		S3 struct {
			Sinks []struct {
				Phase  string    `json:"phase"`
				Queues []sinkRow `json:"queues"`
			} `json:"sinks"`
		} `json:"s3"`
	}
	if err := n.call(http.MethodGet, "/status", nil, &st); err != nil {
		return nil, err
	}
	rows := map[string]sinkRow{}
	if len(st.S3.Sinks) > 0 {
		for _, q := range st.S3.Sinks[0].Queues {
			rows[q.Name] = q
		}
	}
	return rows, nil
}

// waitComplete waits until every queue's completeThrough is past that
// queue's last stamp: every record is then in a committed window.
func (n *queenNode) waitComplete(last map[string]int64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var rows map[string]sinkRow
	var err error
	for time.Now().Before(deadline) {
		if !n.p.alive() {
			return fmt.Errorf("queen exited while its sink ran:\n%s", n.p.tail())
		}
		rows, err = n.sinkRows()
		done := err == nil
		for q, ts := range last {
			row, ok := rows[q]
			if !ok || row.CompleteThrough == nil {
				done = false
				continue
			}
			ct, perr := time.Parse(time.RFC3339Nano, *row.CompleteThrough)
			if perr != nil || ct.UnixMicro() <= ts {
				done = false
			}
		}
		if done {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("the lake is not complete within %v: status rows %+v (last error %v)\n%s", timeout, rows, err, n.p.tail())
}

// record is one record of the data set as the broker stores it.
type record struct {
	Queue string
	lakeformat.Record
}

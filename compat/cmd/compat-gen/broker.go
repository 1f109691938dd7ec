package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/queen-mq/queen-go/httpd/client"
	"github.com/queen-mq/queen-go/lakeformat"
)

// call sends body (raw JSON; a GET when nil) with the given headers (name,
// value pairs) and decodes a 2xx answer into out.
func (n *queenNode) call(method, path string, body []byte, out any, header ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	resp, raw, err := (&client.Client{Base: n.url}).Do(ctx, method, path, body, h)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return client.NewError(method, path, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: %w: %.300s", method, path, err, raw)
		}
	}
	return nil
}

// tenantHeader is the header that names tenant in a data-plane request:
// none for the default tenant, which a request without one is.
func tenantHeader(tenant string) []string {
	if tenant == defaultTenant {
		return nil
	}
	return []string{"x-queen-tenant", tenant}
}

// push pushes items to tenant in one request and checks that each was
// queued.
func (n *queenNode) push(tenant string, items []item) error {
	var out []struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Offset *int64 `json:"offset"`
	}
	if err := n.call(http.MethodPost, "/api/v1/push", pushBody(items), &out, tenantHeader(tenant)...); err != nil {
		return err
	}
	if len(out) != len(items) {
		return fmt.Errorf("push of %d items answered %d", len(items), len(out))
	}
	for i, a := range out {
		if a.Status != "queued" || a.Offset == nil {
			return fmt.Errorf("push of %s/%s to tenant %s answered %+v", items[i].Queue, items[i].Partition, tenant, a)
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

// fetchAll reads a partition of tenant from offset 0 to its end.
func (n *queenNode) fetchAll(tenant, queue, partition string) ([]fetched, error) {
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
		if err := n.call(http.MethodPost, "/api/v1/fetch", body, &out, tenantHeader(tenant)...); err != nil {
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

// sinkUnit is a sink's entry in the s3 block of GET /status.
type sinkUnit struct {
	Tenant string    `json:"tenant"`
	Source string    `json:"source"`
	Sink   string    `json:"sink"`
	Phase  string    `json:"phase"`
	Error  *string   `json:"error"`
	Queues []sinkRow `json:"queues"`
}

// sinkUnit returns the node's sink of tenant named sink (nil: none runs).
func (n *queenNode) sinkUnit(tenant, sink string) (*sinkUnit, error) {
	var st struct {
		S3 struct {
			Sinks []sinkUnit `json:"sinks"`
		} `json:"s3"`
	}
	// The node-wide status: on a control-plane lake's node, the control
	// plane's token reads it (no API key does); elsewhere it is ignored.
	if err := n.call(http.MethodGet, "/status", nil, &st, "x-queen-cp-token", cpToken); err != nil {
		return nil, err
	}
	for i, u := range st.S3.Sinks {
		if u.Tenant == tenant && u.Sink == sink {
			return &st.S3.Sinks[i], nil
		}
	}
	return nil, nil
}

// waitComplete waits until the sink of tenant named sink runs and every
// queue's completeThrough is past that queue's last stamp: every record of
// the tenant is then in a committed window. A sink in phase error fails at
// once, with its reason.
func (n *queenNode) waitComplete(tenant, sink string, last map[string]int64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var u *sinkUnit
	var err error
	for time.Now().Before(deadline) {
		if !n.p.alive() {
			return fmt.Errorf("queen exited while its sink ran:\n%s", n.p.tail())
		}
		u, err = n.sinkUnit(tenant, sink)
		if err == nil && u != nil && u.Phase == "error" {
			return fmt.Errorf("the %s sink %s of tenant %s is in phase error: %s", u.Source, sink, tenant, deref(u.Error))
		}
		done := err == nil && u != nil
		rows := map[string]sinkRow{}
		if u != nil {
			for _, q := range u.Queues {
				rows[q.Name] = q
			}
		}
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
	return fmt.Errorf("the lake is not complete within %v: sink %+v (last error %v)\n%s", timeout, u, err, n.p.tail())
}

// record is one record of the data set as the broker stores it.
type record struct {
	Queue string
	lakeformat.Record
}

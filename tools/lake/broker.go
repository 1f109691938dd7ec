package lake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/queen-mq/queen-go/httpd/client"
	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/s3sink/kvdoc"
)

// brokerClient reads a queue's log over the broker's read API (API.md §4):
// POST /api/v1/partitions/changed and POST /api/v1/fetch. The reads take
// no lease and move no cursor.
type brokerClient struct{ api *client.Client }

func newBrokerClient(cfg *Config) *brokerClient {
	api := &client.Client{Base: cfg.Broker, Token: cfg.BrokerToken, HTTP: cfg.HTTPClient}
	if cfg.Tenant != DefaultTenant {
		api.Tenant = cfg.Tenant // read only by a broker with QUEEN_TENANCY_HEADER
	}
	return &brokerClient{api: api}
}

// post sends req as JSON to path and decodes a 2xx answer into resp.
func (b *brokerClient) post(ctx context.Context, path string, req, resp any) error {
	_, err := b.api.Call(ctx, http.MethodPost, path, req, resp)
	var refused *client.Error
	switch {
	case errors.As(err, &refused): // as queen-lake has always printed a refusal
		return fmt.Errorf("lake: broker %s: %d %s: %.300s", path, refused.Status, http.StatusText(refused.Status), refused.Body)
	case err != nil:
		return fmt.Errorf("lake: broker %s: %w", path, err)
	}
	return nil
}

// brokerPartition is one partition of a partitions/changed answer.
type brokerPartition struct {
	Name       string `json:"name"`
	ID         string `json:"id"`
	LastOffset int64  `json:"lastOffset"`
	LogStart   int64  `json:"logStart"`
}

// errUnknownQueue is the entry error of a queue the broker does not have.
const errUnknownQueue = "UNKNOWN_TOPIC_OR_PARTITION"

// partitions lists every partition of queue, all pages. An entry error
// (UNKNOWN_TOPIC_OR_PARTITION, BAD_CURSOR) comes back as code.
func (b *brokerClient) partitions(ctx context.Context, queue string) (ps []brokerPartition, code string, err error) {
	type entry struct { // no since: every partition
		Queue string `json:"queue"`
		After string `json:"after,omitempty"`
		Limit int    `json:"limit"`
	}
	var after string
	for {
		var ans struct {
			Entries []struct {
				Partitions []brokerPartition `json:"partitions"`
				Next       *string           `json:"next"`
				Error      string            `json:"error"`
			} `json:"entries"`
		}
		req := map[string][]entry{"entries": {{Queue: queue, After: after, Limit: 1000}}}
		if err := b.post(ctx, "/api/v1/partitions/changed", req, &ans); err != nil {
			return nil, "", err
		}
		if len(ans.Entries) != 1 {
			return nil, "", fmt.Errorf("lake: broker partitions/changed: %d entries for 1", len(ans.Entries))
		}
		e := ans.Entries[0]
		if e.Error != "" {
			return ps, e.Error, nil
		}
		ps = append(ps, e.Partitions...)
		if e.Next == nil || *e.Next == "" {
			return ps, "", nil
		}
		if *e.Next == after {
			return nil, "", fmt.Errorf("lake: broker partitions/changed: cursor %q does not move", after)
		}
		after = *e.Next
	}
}

// fetchQuery asks for one partition's records from an offset.
type fetchQuery struct {
	Queue     string `json:"queue"`
	Partition string `json:"partition"`
	Offset    int64  `json:"offset"`
	MaxBytes  int    `json:"maxBytes"`
}

// fetchEntry is one entry of a fetch answer.
type fetchEntry struct {
	Queue          string        `json:"queue"`
	Partition      string        `json:"partition"`
	Records        []fetchRecord `json:"records"`
	HighWatermark  int64         `json:"highWatermark"`
	LogStartOffset int64         `json:"logStartOffset"`
	Error          string        `json:"error"`
}

// fetchRecord is one record of a fetch answer; Payload is the stored JSON
// text as the broker wrote it, null for none.
type fetchRecord struct {
	Offset        int64           `json:"offset"`
	TransactionID string          `json:"transactionId"`
	Payload       json.RawMessage `json:"payload"`
	Ts            string          `json:"ts"`
}

// errOutOfRange is the entry error of an offset below the log start or
// past the high watermark.
const errOutOfRange = "OFFSET_OUT_OF_RANGE"

// fetchMaxBytes is each entry's maxBytes: the broker's default.
const fetchMaxBytes = 1 << 20

// maxFetchEntries bounds the entries of one fetch call (the broker takes
// up to 1024).
const maxFetchEntries = 64

// fetch reads the records of each query, one call; the answer is
// index-aligned with qs.
func (b *brokerClient) fetch(ctx context.Context, qs []fetchQuery) ([]fetchEntry, error) {
	var ans struct {
		Entries []fetchEntry `json:"entries"`
	}
	if err := b.post(ctx, "/api/v1/fetch", map[string]any{"entries": qs}, &ans); err != nil {
		return nil, err
	}
	if len(ans.Entries) != len(qs) {
		return nil, fmt.Errorf("lake: broker fetch: %d entries for %d", len(ans.Entries), len(qs))
	}
	return ans.Entries, nil
}

// parseStamp reads a broker stamp: ISO-8601 UTC as the lake writes it,
// or any RFC 3339 time.
func parseStamp(s string) (int64, error) {
	if us, err := lakeformat.ParseTs(s); err == nil {
		return us, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, fmt.Errorf("lake: broker stamp %q is not ISO-8601", s)
	}
	return t.UnixMicro(), nil
}

// payloadOf returns the stored payload of a fetched record: empty for null.
func (r *fetchRecord) payloadOf() []byte {
	if len(r.Payload) == 0 || string(r.Payload) == "null" {
		return nil
	}
	return r.Payload
}

// startPoint reads, from the broker's KV, where the sink's lake of queue
// begins (kvdoc.StartKey): ok is false when the sink wrote none (a sink
// of an older broker, or one that never found the queue). -1 means the
// log's first record (start=earliest).
func (b *brokerClient) startPoint(ctx context.Context, sink, queue string) (tStart int64, ok bool, err error) {
	var ans struct {
		Results []struct {
			Found bool            `json:"found"`
			Value json.RawMessage `json:"value"`
		} `json:"results"`
	}
	req := map[string]any{"operations": []map[string]any{{"op": "get", "ns": kvdoc.Namespace, "key": kvdoc.StartKey(sink, queue)}}}
	if err := b.post(ctx, "/api/v1/kv", req, &ans); err != nil {
		return 0, false, err
	}
	if len(ans.Results) != 1 || !ans.Results[0].Found {
		return 0, false, nil
	}
	var d struct {
		TStart *int64 `json:"tStart"`
	}
	if err := json.Unmarshal(ans.Results[0].Value, &d); err != nil || d.TStart == nil {
		return 0, false, fmt.Errorf("lake: the sink's start point %s is not one", ans.Results[0].Value)
	}
	return *d.TStart, true, nil
}

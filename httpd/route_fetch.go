package httpd

import (
	"fmt"
	"net/http"

	"github.com/queen-mq/queen-go/contract"
)

// The limits and defaults of POST /api/v1/fetch (API.md §4).
const (
	DefaultFetchMaxBytes = 1 << 20 // an entry's maxBytes when absent
	MaxFetchMaxBytes     = 8 << 20 // maxBytes is clamped to 1..this
	MaxFetchWaitMs       = 30000   // maxWaitMs is clamped to 0..this
	DefaultFetchMinBytes = 1       // minBytes when absent
)

// fetch is POST /api/v1/fetch: records by offset, index-aligned with the
// entries. Payloads are written as stored, byte for byte.
func (s *server) fetch() http.Handler {
	return route(http.StatusOK, bodyOf(s, decodeFetch), func(r *http.Request, req FetchRequest) (rawJSON, error) {
		if len(req.Entries) == 0 {
			return rawJSON(`{"entries":[]}`), nil
		}
		got, err := s.b.Fetch(r.Context(), tenantOf(r), req)
		if err != nil {
			return nil, err
		}
		if len(got) != len(req.Entries) {
			return nil, fmt.Errorf("httpd: broker answered %d fetch entries for %d", len(got), len(req.Entries))
		}
		return appendFetch(nil, got), nil
	})
}

// decodeFetch checks and defaults a fetch body, which must be valid JSON.
func decodeFetch(body []byte) (FetchRequest, error) {
	var req FetchRequest
	top, err := asObject(body, "the body")
	if err != nil {
		return req, err
	}
	entries, err := decodeEntries(top)
	if err != nil {
		return req, err
	}
	wait, _, err := top.integer("maxWaitMs", "maxWaitMs", contract.FetchMaxWait, 0)
	if err != nil {
		return req, err
	}
	minBytes, _, err := top.integer("minBytes", "minBytes", contract.FetchMinBytes, DefaultFetchMinBytes)
	if err != nil {
		return req, err
	}
	req.MaxWaitMs, req.MinBytes = int(wait), int(minBytes)
	req.Entries = make([]FetchQuery, len(entries))
	for i, o := range entries {
		path := fmt.Sprintf("entries[%d]", i)
		q := &req.Entries[i]
		if q.Queue, err = queueOf(o, path); err != nil {
			return req, err
		}
		if q.Partition, err = partitionOf(o, path); err != nil {
			return req, err
		}
		if isNull(o["offset"]) {
			return req, badRequest("%s.offset is required", path)
		}
		if q.Offset, _, err = o.integer("offset", path+".offset", contract.FetchOffset, 0); err != nil {
			return req, err
		}
		mb, _, err := o.integer("maxBytes", path+".maxBytes", contract.FetchMaxBytes, DefaultFetchMaxBytes)
		if err != nil {
			return req, err
		}
		q.MaxBytes = int(mb)
	}
	return req, nil
}

// appendFetch renders the answer of a fetch.
func appendFetch(b []byte, entries []FetchEntry) []byte {
	b = append(b, `{"entries":[`...)
	for i := range entries {
		e := &entries[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = appendKey(b, "queue")
		b = appendString(b, e.Queue)
		b = append(b, ',')
		b = appendKey(b, "partition")
		b = appendString(b, e.Partition)
		b = append(b, ',')
		b = appendKey(b, "records")
		b = append(b, '[')
		for j := range e.Records {
			rec := &e.Records[j]
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			b = appendKey(b, "offset")
			b = appendInt(b, rec.Offset)
			b = append(b, ',')
			b = appendKey(b, "transactionId")
			b = appendString(b, rec.TransactionID)
			b = append(b, ',')
			b = appendKey(b, "payload")
			b = appendRaw(b, rec.Payload)
			b = append(b, ',')
			b = appendKey(b, "ts")
			b = appendStamp(b, rec.Ts)
			if rec.ProducerSub != "" {
				b = append(b, ',')
				b = appendKey(b, "producerSub")
				b = appendString(b, rec.ProducerSub)
			}
			b = append(b, '}')
		}
		b = append(b, ']', ',')
		b = appendKey(b, "highWatermark")
		b = appendInt(b, e.HighWatermark)
		b = append(b, ',')
		b = appendKey(b, "logStartOffset")
		b = appendInt(b, e.LogStartOffset)
		if e.Error != "" {
			b = append(b, ',')
			b = appendKey(b, "error")
			b = appendString(b, e.Error)
		}
		b = append(b, '}')
	}
	return append(b, ']', '}', '\n')
}

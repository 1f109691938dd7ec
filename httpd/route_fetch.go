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
	top, entries, err := entriesBody(body)
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
	req.Entries, err = eachEntry(entries, decodeFetchEntry)
	return req, err
}

// decodeFetchEntry reads one entry of a fetch.
func decodeFetchEntry(o object, path string, q *FetchQuery) (err error) {
	if q.Queue, err = queueOf(o, path); err != nil {
		return err
	}
	if q.Partition, err = partitionOf(o, path); err != nil {
		return err
	}
	if isNull(o["offset"]) {
		return badRequest("%s.offset is required", path)
	}
	if q.Offset, _, err = o.integer("offset", path+".offset", contract.FetchOffset, 0); err != nil {
		return err
	}
	mb, _, err := o.integer("maxBytes", path+".maxBytes", contract.FetchMaxBytes, DefaultFetchMaxBytes)
	q.MaxBytes = int(mb)
	return err
}

// appendFetch renders the answer of a fetch.
func appendFetch(b []byte, entries []FetchEntry) []byte {
	b = appendEach(append(b, `{"entries":[`...), entries, func(b []byte, e *FetchEntry) []byte {
		b = append(b, '{')
		b = appendField(b, "queue", e.Queue)
		b = appendField(b, "partition", e.Partition)
		b = appendEach(append(b, `"records":[`...), e.Records, appendFetchRecord)
		b = append(b, ']', ',')
		b = appendIntField(b, "highWatermark", e.HighWatermark)
		b = appendIntField(b, "logStartOffset", e.LogStartOffset)
		if e.Error != "" {
			b = appendField(b, "error", e.Error)
		}
		return closeObject(b)
	})
	return append(b, ']', '}', '\n')
}

// appendFetchRecord renders one record of a fetch; its payload is
// written as stored, and producerSub only when there is one.
func appendFetchRecord(b []byte, rec *FetchRecord) []byte {
	b = append(b, '{')
	b = appendIntField(b, "offset", rec.Offset)
	b = appendField(b, "transactionId", rec.TransactionID)
	b = appendRawField(b, "payload", rec.Payload)
	b = appendStampField(b, "ts", rec.Ts)
	if rec.ProducerSub != "" {
		b = appendField(b, "producerSub", rec.ProducerSub)
	}
	return closeObject(b)
}

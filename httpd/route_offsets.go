package httpd

import (
	"fmt"
	"net/http"
)

// offsetAnswer is one entry of the answer of POST /api/v1/fetch/offsets.
type offsetAnswer struct {
	Queue          string  `json:"queue"`
	Partition      string  `json:"partition"`
	Offset         *int64  `json:"offset"`
	Ts             *string `json:"ts"`
	HighWatermark  int64   `json:"highWatermark"`
	LogStartOffset int64   `json:"logStartOffset"`
	Error          string  `json:"error,omitempty"`
}

// fetchOffsets is POST /api/v1/fetch/offsets: per entry, the first offset
// appended at or after a time (offset and ts null when there is none).
func (s *server) fetchOffsets() http.Handler {
	return route(http.StatusOK, bodyOf(s, decodeOffsets), func(r *http.Request, qs []OffsetQuery) (any, error) {
		out := struct {
			Entries []offsetAnswer `json:"entries"`
		}{Entries: []offsetAnswer{}}
		if len(qs) == 0 {
			return out, nil
		}
		got, err := s.b.FetchOffsets(r.Context(), tenantOf(r), qs)
		if err != nil {
			return nil, err
		}
		if len(got) != len(qs) {
			return nil, fmt.Errorf("httpd: broker answered %d offsets for %d entries", len(got), len(qs))
		}
		for _, a := range got {
			e := offsetAnswer{Queue: a.Queue, Partition: a.Partition, HighWatermark: a.HighWatermark,
				LogStartOffset: a.LogStartOffset, Error: a.Error}
			if a.Found {
				off, ts := a.Offset, formatStamp(a.Ts)
				e.Offset, e.Ts = &off, &ts
			}
			out.Entries = append(out.Entries, e)
		}
		return out, nil
	})
}

// decodeOffsets checks a fetch/offsets body, which must be valid JSON.
func decodeOffsets(body []byte) ([]OffsetQuery, error) {
	o, err := asObject(body, "the body")
	if err != nil {
		return nil, err
	}
	entries, err := decodeEntries(o)
	if err != nil {
		return nil, err
	}
	qs := make([]OffsetQuery, len(entries))
	for i, o := range entries {
		path := fmt.Sprintf("entries[%d]", i)
		q := &qs[i]
		if q.Queue, err = queueOf(o, path); err != nil {
			return nil, err
		}
		if q.Partition, err = partitionOf(o, path); err != nil {
			return nil, err
		}
		if q.Ts, err = timestampOf(o, path); err != nil {
			return nil, err
		}
	}
	return qs, nil
}

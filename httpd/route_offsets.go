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
	return decodeEntriesOf(body, func(o object, path string, q *OffsetQuery) (err error) {
		if q.Queue, err = queueOf(o, path); err != nil {
			return err
		}
		if q.Partition, err = partitionOf(o, path); err != nil {
			return err
		}
		q.Ts, err = timestampOf(o, path)
		return err
	})
}

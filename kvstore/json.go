package kvstore

import "encoding/json"

// The JSON of answers is API.md §5's: {"results":[…]} or the
// kv_precondition failure; timestamps rendered by FormatStamp, a row that
// never expires with "expiresAt": null; a value that is absent is left
// out (JSON null is a value, and shows as null).

// MarshalJSON renders the answer as the body of POST /api/v1/kv.
func (a Answer) MarshalJSON() ([]byte, error) {
	if !a.OK {
		return json.Marshal(struct {
			OK          bool            `json:"ok"`
			Reason      string          `json:"reason"`
			FailedIndex int             `json:"failedIndex"`
			KVReason    string          `json:"kvReason"`
			Version     uint64          `json:"version"`
			Value       json.RawMessage `json:"value,omitempty"`
		}{false, a.Reason, a.FailedIndex, a.KVReason, a.Version, a.Value})
	}
	results := a.Results
	if results == nil {
		results = []Result{}
	}
	return json.Marshal(struct {
		Results []Result `json:"results"`
	}{results})
}

// MarshalJSON renders the result in its op's shape.
func (r Result) MarshalJSON() ([]byte, error) {
	switch r.Op {
	case OpGet:
		if !r.Found {
			return json.Marshal(struct {
				Index int    `json:"index"`
				Op    string `json:"op"`
				Found bool   `json:"found"`
				Key   string `json:"key"`
			}{r.Index, r.Op, false, r.Key})
		}
		w := rowJSON(Row{Key: r.Key, Value: r.Value, Version: r.Version, ExpiresAt: r.ExpiresAt, UpdatedAt: r.UpdatedAt})
		return json.Marshal(struct {
			Index     int             `json:"index"`
			Op        string          `json:"op"`
			Found     bool            `json:"found"`
			Key       string          `json:"key"`
			Value     json.RawMessage `json:"value"`
			Version   uint64          `json:"version"`
			ExpiresAt *string         `json:"expiresAt"`
			UpdatedAt string          `json:"updatedAt"`
		}{r.Index, r.Op, true, w.Key, w.Value, w.Version, w.ExpiresAt, w.UpdatedAt})
	case OpGetMany:
		return json.Marshal(struct {
			Index     int      `json:"index"`
			Op        string   `json:"op"`
			Rows      []Row    `json:"rows"`
			Missing   []string `json:"missing"`
			Truncated bool     `json:"truncated"`
		}{r.Index, r.Op, nonNil(r.Rows), nonNil(r.Missing), r.Truncated})
	case OpGetPrefix:
		var next *string
		if r.NextAfter != "" {
			next = &r.NextAfter
		}
		return json.Marshal(struct {
			Index     int     `json:"index"`
			Op        string  `json:"op"`
			Rows      []Row   `json:"rows"`
			Truncated bool    `json:"truncated"`
			NextAfter *string `json:"nextAfter"`
		}{r.Index, r.Op, nonNil(r.Rows), r.Truncated, next})
	}
	return json.Marshal(struct {
		Index   int             `json:"index"`
		Op      string          `json:"op"`
		Applied bool            `json:"applied"`
		Reason  string          `json:"reason,omitempty"`
		Key     string          `json:"key"`
		Value   json.RawMessage `json:"value,omitempty"`
		Version uint64          `json:"version"`
	}{r.Index, r.Op, r.Applied, r.Reason, r.Key, r.Value, r.Version})
}

// MarshalJSON renders the row as getMany and getPrefix show one (without
// value for keysOnly).
func (w Row) MarshalJSON() ([]byte, error) { return json.Marshal(rowJSON(w)) }

type jsonRow struct {
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value,omitempty"`
	Version   uint64          `json:"version"`
	ExpiresAt *string         `json:"expiresAt"`
	UpdatedAt string          `json:"updatedAt"`
}

func rowJSON(w Row) jsonRow {
	j := jsonRow{Key: w.Key, Value: w.Value, Version: w.Version, UpdatedAt: FormatStamp(w.UpdatedAt)}
	if w.ExpiresAt != 0 {
		s := FormatStamp(w.ExpiresAt)
		j.ExpiresAt = &s
	}
	return j
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

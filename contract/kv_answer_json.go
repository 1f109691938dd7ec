package contract

import "encoding/json"

// The JSON of KV answers is API.md §5's: {"results":[…]} or the
// kv_precondition failure; timestamps rendered by FormatKVStamp, a row
// that never expires with "expiresAt": null; a value that is absent is
// left out (JSON null is a value, and shows as null).

// MarshalJSON renders the answer as the body of POST /api/v1/kv.
func (a KVAnswer) MarshalJSON() ([]byte, error) {
	if !a.OK {
		return json.Marshal(struct {
			OK          bool            `json:"ok"`
			Reason      string          `json:"reason"`
			FailedIndex int             `json:"failedIndex"`
			KVReason    string          `json:"kvReason"`
			Version     uint64          `json:"version"`
			Value       json.RawMessage `json:"value,omitempty"`
		}{false, KVReasonPrecondition, a.FailedIndex, a.KVReason, a.Version, a.Value})
	}
	results := a.Results
	if results == nil {
		results = []KVResult{}
	}
	return json.Marshal(struct {
		Results []KVResult `json:"results"`
	}{results})
}

// MarshalJSON renders the result in its op's shape.
func (r KVResult) MarshalJSON() ([]byte, error) {
	switch r.Op {
	case KVGet:
		if !r.Found {
			return json.Marshal(struct {
				Index int    `json:"index"`
				Op    string `json:"op"`
				Found bool   `json:"found"`
				Key   string `json:"key"`
			}{r.Index, r.Op, false, r.Key})
		}
		w := rowJSON(KVRow{Key: r.Key, Value: r.Value, Version: r.Version, ExpiresAt: r.ExpiresAt, UpdatedAt: r.UpdatedAt})
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
	case KVGetMany:
		return json.Marshal(struct {
			Index     int      `json:"index"`
			Op        string   `json:"op"`
			Rows      []KVRow  `json:"rows"`
			Missing   []string `json:"missing"`
			Truncated bool     `json:"truncated"`
		}{r.Index, r.Op, nonNil(r.Rows), nonNil(r.Missing), r.Truncated})
	case KVGetPrefix:
		return json.Marshal(struct {
			Index     int     `json:"index"`
			Op        string  `json:"op"`
			Rows      []KVRow `json:"rows"`
			Truncated bool    `json:"truncated"`
			NextAfter *string `json:"nextAfter"`
		}{r.Index, r.Op, nonNil(r.Rows), r.Truncated, nextAfter(r.NextAfter)})
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
func (w KVRow) MarshalJSON() ([]byte, error) { return json.Marshal(rowJSON(w)) }

// MarshalJSON renders the page as POST /api/v1/resources/kv/list answers
// it: {rows:[{key,value,version,expiresAt,updatedAt,expired}],truncated,
// nextAfter (null on the last page),bytes}.
func (a *KVListAnswer) MarshalJSON() ([]byte, error) {
	type row struct {
		jsonRow
		Expired bool `json:"expired"`
	}
	rows := make([]row, len(a.Rows))
	for i, r := range a.Rows {
		rows[i] = row{rowJSON(r.KVRow), r.Expired}
	}
	return json.Marshal(struct {
		Rows      []row   `json:"rows"`
		Truncated bool    `json:"truncated"`
		NextAfter *string `json:"nextAfter"`
		Bytes     int64   `json:"bytes"`
	}{rows, a.Truncated, nextAfter(a.NextAfter), a.Bytes})
}

// KVCounts is the answer of GET /api/v1/resources/kv/namespaces: a
// tenant's namespaces with their counts of live keys.
type KVCounts []KVNamespaceCount

// MarshalJSON renders {namespaces:[{namespace,keys}]}.
func (c KVCounts) MarshalJSON() ([]byte, error) {
	type ns struct {
		Namespace string `json:"namespace"`
		Keys      int64  `json:"keys"`
	}
	out := make([]ns, len(c))
	for i, n := range c {
		out[i] = ns{n.Namespace, n.Keys}
	}
	return json.Marshal(struct {
		Namespaces []ns `json:"namespaces"`
	}{out})
}

type jsonRow struct {
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value,omitempty"`
	Version   uint64          `json:"version"`
	ExpiresAt *string         `json:"expiresAt"`
	UpdatedAt string          `json:"updatedAt"`
}

func rowJSON(w KVRow) jsonRow {
	j := jsonRow{Key: w.Key, Value: w.Value, Version: w.Version, UpdatedAt: FormatKVStamp(w.UpdatedAt)}
	if w.ExpiresAt != 0 {
		s := FormatKVStamp(w.ExpiresAt)
		j.ExpiresAt = &s
	}
	return j
}

// nextAfter renders a page's last key, null ("" here) on the last page.
func nextAfter(k string) *string {
	if k == "" {
		return nil
	}
	return &k
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

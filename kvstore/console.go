package kvstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// The console reads of API.md §5: the namespaces with their exact counts
// (Namespaces, expiry.go), and a page of a namespace's rows with expired
// ones shown when asked (List). Both are linearizable reads.

// ListQuery is POST /api/v1/resources/kv/list: a namespace's rows whose key
// starts with Prefix ("" for all), after the key After, at most Limit
// (default DefaultPageLimit, clamped to 1..MaxPageLimit); KeysOnly leaves
// values out, IncludeExpired shows rows past their TTL the sweep has not
// deleted yet, marked expired.
type ListQuery struct {
	NS, Prefix, After string
	Limit             int
	KeysOnly          bool
	IncludeExpired    bool
}

// ListRow is one row of a List page.
type ListRow struct {
	Row
	Expired bool
}

// ListAnswer is one page of List: Truncated when more rows follow (the
// next page starts after NextAfter), Bytes the keys' and values' bytes.
type ListAnswer struct {
	Rows      []ListRow
	Truncated bool
	NextAfter string
	Bytes     int64
}

// List reads one page of a namespace's rows (ListQuery). Its errors are
// *contract.KVError for a query the contract refuses.
func (s *Store) List(ctx context.Context, tenant string, q ListQuery) (*ListAnswer, error) {
	if err := contract.CheckKVList(q.NS, q.Prefix, q.After); err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit == 0 {
		limit = DefaultPageLimit
	}
	limit = min(max(limit, 1), MaxPageLimit)
	got, err := s.shard.Read(ctx, func(v *raftlog.View) (any, error) { return list(v, tenant, q, limit) })
	if err != nil {
		return nil, err
	}
	return got.(*ListAnswer), nil
}

func list(v *raftlog.View, tenant string, q ListQuery, limit int) (*ListAnswer, error) {
	base := nsPrefix(tenant, q.NS)
	lower := append(slices.Clip(base), q.Prefix...)
	upper := wire.PrefixEnd(lower)
	if q.After != "" {
		if a := append(append(slices.Clip(base), q.After...), 0); bytes.Compare(a, lower) > 0 {
			lower = a
		}
	}
	a := &ListAnswer{Rows: []ListRow{}}
	if upper != nil && bytes.Compare(lower, upper) >= 0 {
		return a, nil
	}
	budget := int64(ReadBudget)
	var ferr error
	err := v.Scan(lower, upper, func(key, val []byte) bool {
		w, err := decodeRow(val)
		if err != nil {
			ferr = fmt.Errorf("%w: %q: %w", raftlog.ErrStorage, key, err)
			return false
		}
		expired := !w.live(v.Stamp())
		if expired && !q.IncludeExpired {
			return true
		}
		k := string(key[len(base):])
		n := int64(len(k))
		if !q.KeysOnly {
			n += int64(len(w.value))
		}
		if len(a.Rows) == limit || n > budget {
			a.Truncated = true
			return false
		}
		budget -= n
		a.Bytes += n
		r := ListRow{Row: Row{Key: k, Version: w.version, ExpiresAt: w.expiresAt, UpdatedAt: w.updatedAt}, Expired: expired}
		if !q.KeysOnly {
			r.Value = slices.Clone(w.value)
		}
		a.Rows = append(a.Rows, r)
		a.NextAfter = k
		return true
	})
	if err == nil {
		err = ferr
	}
	if !a.Truncated {
		a.NextAfter = ""
	}
	return a, err
}

// MarshalJSON renders the page as POST /api/v1/resources/kv/list answers
// it: {rows:[{key,value,version,expiresAt,updatedAt,expired}],truncated,
// nextAfter (null on the last page),bytes}.
func (a *ListAnswer) MarshalJSON() ([]byte, error) {
	type row struct {
		jsonRow
		Expired bool `json:"expired"`
	}
	rows := make([]row, len(a.Rows))
	for i, r := range a.Rows {
		rows[i] = row{rowJSON(r.Row), r.Expired}
	}
	var next *string
	if a.NextAfter != "" {
		next = &a.NextAfter
	}
	return json.Marshal(struct {
		Rows      []row   `json:"rows"`
		Truncated bool    `json:"truncated"`
		NextAfter *string `json:"nextAfter"`
		Bytes     int64   `json:"bytes"`
	}{rows, a.Truncated, next, a.Bytes})
}

// Counts is the answer of GET /api/v1/resources/kv/namespaces.
type Counts []NamespaceCount

// MarshalJSON renders {namespaces:[{namespace,keys}]}.
func (c Counts) MarshalJSON() ([]byte, error) {
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

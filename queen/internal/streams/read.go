package streams

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// Get reads a query by name; ok false when none is registered.
func Get(v *raftlog.View, tenant, name string) (Query, bool, error) {
	return getQuery(v.Get, tenant, name)
}

// ByID reads the query a registration's id names; ok false when it names
// none (never minted, or retired by a reset or a delete).
func ByID(v *raftlog.View, tenant string, id [16]byte) (Query, bool, error) {
	return queryByID(v.Get, tenant, id)
}

// List reads a tenant's queries in name byte order.
func List(v *raftlog.View, tenant string) ([]Query, error) {
	var out []Query
	err := eachQuery(v.Scan, queriesPrefix(tenant), func(_ string, q Query) bool {
		out = append(out, q)
		return true
	})
	return out, err
}

// Row is one state row: its key and its value (JSON).
type Row struct {
	Key   string
	Value json.RawMessage
}

// StateFilter picks the state rows a read returns: Keys (all when
// empty), and of those the ones whose key starts with Prefix, and, when
// Ripe is set, whose value is an object with a numeric windowEnd at or
// before RipeAt (a window the idle flush may close).
type StateFilter struct {
	Keys   []string
	Prefix string
	Ripe   bool
	RipeAt int64
}

// State reads a query's state rows of one source partition in key byte
// order, at most limit (more says the limit cut it).
func State(v *raftlog.View, tenant string, id [16]byte, partition string, f StateFilter, limit int) (rows []Row, more bool, err error) {
	p := partitionState(tenant, id, partition)
	keep := func(key string, val []byte) bool {
		if !f.Ripe {
			return true
		}
		var w struct {
			WindowEnd *float64 `json:"windowEnd"`
		}
		return json.Unmarshal(val, &w) == nil && w.WindowEnd != nil && *w.WindowEnd <= float64(f.RipeAt)
	}
	if len(f.Keys) > 0 {
		seen := map[string]bool{}
		for _, k := range f.Keys {
			if seen[k] || !bytes.HasPrefix([]byte(k), []byte(f.Prefix)) {
				continue
			}
			seen[k] = true
			val, ok, err := v.Get(append(bytes.Clone(p), k...))
			if err != nil {
				return nil, false, err
			}
			if ok && keep(k, val) {
				if len(rows) == limit {
					return rows, true, nil
				}
				rows = append(rows, Row{Key: k, Value: val})
			}
		}
		slices.SortFunc(rows, func(a, b Row) int { return strings.Compare(a.Key, b.Key) })
		return rows, false, nil
	}
	lower := append(bytes.Clone(p), f.Prefix...)
	err = v.Scan(lower, wire.PrefixEnd(lower), func(k, val []byte) bool {
		key := string(k[len(p):])
		if !keep(key, val) {
			return true
		}
		if len(rows) == limit {
			more = true
			return false
		}
		rows = append(rows, Row{Key: key, Value: bytes.Clone(val)})
		return true
	})
	return rows, more, err
}

// ParseID reads a query id (a UUID's text).
func ParseID(s string) ([16]byte, error) {
	u, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return [16]byte{}, fmt.Errorf("query_id: %q is not a query id (a UUID a registration answered)", contract.Clip(s))
	}
	return u, nil
}

func idText(id [16]byte) string { return uuid.UUID(id).String() }

// IDText is a query id's text, as the routes answer it.
func IDText(id [16]byte) string { return idText(id) }

// Tenanted is a query with its tenant.
type Tenanted struct {
	Tenant string
	Query
}

// ListAll reads every tenant's queries, by tenant then name.
func ListAll(v *raftlog.View) ([]Tenanted, error) {
	var out []Tenanted
	err := eachQuery(v.Scan, []byte{prefixQuery}, func(tenant string, q Query) bool {
		out = append(out, Tenanted{Tenant: tenant, Query: q})
		return true
	})
	return out, err
}

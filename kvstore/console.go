package kvstore

import (
	"bytes"
	"context"
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

// ListRow is one row of a List page (contract.KVListRow): a Row, and
// Expired when it is past its TTL.
type ListRow = contract.KVListRow

// ListAnswer is one page of List (contract.KVListAnswer): Truncated when
// more rows follow (the next page starts after NextAfter), Bytes the keys'
// and values' bytes.
type ListAnswer = contract.KVListAnswer

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
		r := ListRow{KVRow: Row{Key: k, Version: w.version, ExpiresAt: w.expiresAt, UpdatedAt: w.updatedAt}, Expired: expired}
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

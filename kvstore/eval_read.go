package kvstore

import (
	"bytes"
	"fmt"
	"github.com/queen-mq/queen-go/raftlog/wire"
	"slices"

	"github.com/queen-mq/queen-go/raftlog"
)

// The read ops. Each row read spends its key's and value's bytes from the
// call's budget; get always answers (its size is bounded by the value
// limit), getMany and getPrefix stop and say truncated when the next row
// would not fit.

func (e *evaluator) get(o *op, r *Result) error {
	r.Key = o.key
	cur, live, err := e.load(o.ns, o.key)
	if err != nil || !live {
		return err
	}
	e.budget -= len(o.key) + len(cur.value)
	r.Found, r.Value, r.Version, r.ExpiresAt, r.UpdatedAt = true, cur.value, cur.version, cur.expiresAt, cur.updatedAt
	return nil
}

// getMany reads o.keys in key byte order, each once.
func (e *evaluator) getMany(o *op, r *Result) error {
	keys := slices.Compact(slices.Sorted(slices.Values(o.keys)))
	for _, k := range keys {
		cur, live, err := e.load(o.ns, k)
		if err != nil {
			return err
		}
		if !live {
			r.Missing = append(r.Missing, k)
			continue
		}
		n := len(k) + len(cur.value)
		if n > e.budget {
			r.Truncated = true
			return nil
		}
		e.budget -= n
		r.Rows = append(r.Rows, Row{Key: k, Value: cur.value, Version: cur.version, ExpiresAt: cur.expiresAt, UpdatedAt: cur.updatedAt})
	}
	return nil
}

// getPrefix pages through the live rows whose key starts with o.key,
// after o.after, at most o.limit of them. It reads one row past the page
// to know whether more follow; expired rows are skipped.
func (e *evaluator) getPrefix(o *op, r *Result) error {
	base := nsPrefix(e.tenant, o.ns)
	lower := append(slices.Clip(base), o.key...)
	upper := wire.PrefixEnd(lower)
	if o.after != "" {
		// the first key after o.after: o.after followed by a NUL
		if a := append(append(slices.Clip(base), o.after...), 0); bytes.Compare(a, lower) > 0 {
			lower = a
		}
	}
	limit := max(int(o.limit), 1)
	if upper != nil && bytes.Compare(lower, upper) >= 0 {
		return nil
	}
	var ferr error
	err := e.st.Scan(lower, upper, func(key, val []byte) bool {
		w, err := decodeRow(val)
		if err != nil {
			ferr = fmt.Errorf("%w: %q: %w", raftlog.ErrStorage, key, err)
			return false
		}
		if !w.live(e.stamp) {
			return true
		}
		k := string(key[len(base):])
		n := len(k)
		if !o.keysOnly {
			n += len(w.value)
		}
		if len(r.Rows) == limit || n > e.budget {
			r.Truncated = true
			return false
		}
		e.budget -= n
		row := Row{Key: k, Version: w.version, ExpiresAt: w.expiresAt, UpdatedAt: w.updatedAt}
		if !o.keysOnly {
			row.Value = slices.Clone(w.value)
		}
		r.Rows = append(r.Rows, row)
		return true
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	if r.Truncated {
		r.NextAfter = o.after
		if len(r.Rows) > 0 {
			r.NextAfter = r.Rows[len(r.Rows)-1].Key
		}
	}
	return nil
}

package controlplane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/raftlog"
)

// row is one stored row: its value and version.
type row struct {
	Key     string
	Value   json.RawMessage
	Version uint64
}

// kv runs the control plane's KV calls, all in SystemTenant's NS.
type kv struct{ store *kvstore.Store }

// A write the storage gate refused (a disk above its high mark) is the
// engine's 507 storage_full: it did not happen.
func (k kv) do(ctx context.Context, ops ...kvstore.Op) (*kvstore.Answer, error) {
	for i := range ops {
		ops[i].NS = NS
	}
	a, err := k.store.Do(ctx, SystemTenant, ops)
	if errors.Is(err, raftlog.ErrStorageFull) {
		return nil, httpd.CPError(http.StatusInsufficientStorage, httpd.CodeStorageFull, err.Error())
	}
	return a, err
}

// get reads one row (ok false: none), decoding its value into v.
func (k kv) get(ctx context.Context, key string, v any) (version uint64, ok bool, err error) {
	a, err := k.do(ctx, kvstore.Op{Op: kvstore.OpGet, Key: key})
	if err != nil {
		return 0, false, err
	}
	r := a.Results[0]
	if !r.Found {
		return 0, false, nil
	}
	if err := json.Unmarshal(r.Value, v); err != nil {
		return 0, false, fmt.Errorf("control plane row %s: %w", key, err)
	}
	return r.Version, true, nil
}

// list reads every row whose key starts with prefix, in key order, in
// pages of 1000.
func (k kv) list(ctx context.Context, prefix string) ([]row, error) {
	var rows []row
	after := ""
	for {
		a, err := k.do(ctx, kvstore.Op{Op: kvstore.OpGetPrefix, Prefix: prefix, After: after, Limit: 1000})
		if err != nil {
			return nil, err
		}
		r := a.Results[0]
		for _, x := range r.Rows {
			rows = append(rows, row{Key: x.Key, Value: x.Value, Version: x.Version})
		}
		if !r.Truncated || r.NextAfter == "" {
			return rows, nil
		}
		after = r.NextAfter
	}
}

// write runs write ops that must all apply: applied false when one of
// them did not (a precondition: another writer got there first).
func (k kv) write(ctx context.Context, ops ...kvstore.Op) (applied bool, err error) {
	for i := range ops {
		ops[i].Required = true
	}
	a, err := k.do(ctx, ops...)
	if err != nil {
		return false, err
	}
	return a.OK, nil
}

// putOp writes v at key forever; expect is the version the row must be
// at (0: absent).
func putOp(key string, v any, expect uint64) kvstore.Op {
	b, err := json.Marshal(v)
	if err != nil {
		// INVARIANT: the row types always marshal.
		panic("controlplane: marshal row: " + err.Error())
	}
	e := int64(expect)
	return kvstore.Op{Op: kvstore.OpPut, Key: key, Value: b, Forever: true, Expect: &e}
}

// deleteOp deletes key at version expect.
func deleteOp(key string, expect uint64) kvstore.Op {
	e := int64(expect)
	return kvstore.Op{Op: kvstore.OpDelete, Key: key, Expect: &e}
}

// listAs lists the rows under prefix and decodes each value into a T.
func listAs[T any](ctx context.Context, k kv, prefix string) ([]row, []T, error) {
	rows, err := k.list(ctx, prefix)
	if err != nil {
		return nil, nil, err
	}
	vs, err := decodeRows[T](rows)
	return rows, vs, err
}

// decodeRows decodes each row's value into a T.
func decodeRows[T any](rows []row) ([]T, error) {
	out := make([]T, len(rows))
	for i, r := range rows {
		if err := json.Unmarshal(r.Value, &out[i]); err != nil {
			return nil, fmt.Errorf("control plane row %s: %w", r.Key, err)
		}
	}
	return out, nil
}

// deleteAny deletes key at whatever version it is.
func deleteAny(key string) kvstore.Op { return kvstore.Op{Op: kvstore.OpDelete, Key: key} }

package httpd

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/queen-mq/queen-go/contract"
)

// KVConsole is the console's view of the KV store (API.md §5): the
// namespaces with their exact key counts, and pages of a namespace's rows.
// New serves GET /api/v1/resources/kv/namespaces and POST
// /api/v1/resources/kv/list when the Broker implements it.
//
// The error contract is Broker's; both are read-only. The answers marshal
// as the response bodies: {"namespaces":[{"namespace","keys"}]} and
// {"rows":[{key,value,version,expiresAt,updatedAt,expired}],"truncated",
// "nextAfter","bytes"}.
type KVConsole interface {
	KVNamespaces(ctx context.Context, tenant string) (json.Marshaler, error)
	KVList(ctx context.Context, tenant string, q KVListQuery) (json.Marshaler, error)
}

// KVListQuery is POST /api/v1/resources/kv/list, its types checked: the
// namespace is required; Limit 0 means the default (100), and the broker
// clamps it to 1..1000.
type KVListQuery struct {
	Namespace, Prefix, After string
	Limit                    int
	KeysOnly, IncludeExpired bool
}

// kvNamespaces is GET /api/v1/resources/kv/namespaces.
func (s *server) kvNamespaces() http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		if err := noConsoleQuery(r); err != nil {
			return err
		}
		ans, err := s.kc.KVNamespaces(r.Context(), tenantOf(r))
		if err != nil {
			return err
		}
		return writeMarshaler(w, ans)
	})
}

// noConsoleQuery refuses a console read with a query string.
func noConsoleQuery(r *http.Request) error {
	if r.URL.RawQuery != "" || r.URL.ForceQuery {
		return kvError(http.StatusBadRequest, ReasonKVNoQueryString, "console reads take no query string")
	}
	return nil
}

// kvList is POST /api/v1/resources/kv/list.
func (s *server) kvList() http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		if err := noConsoleQuery(r); err != nil {
			return err
		}
		q, err := decodeKVBody(s, r, decodeKVList)
		if err != nil {
			return err
		}
		ans, err := s.kc.KVList(r.Context(), tenantOf(r), q)
		if err != nil {
			return err
		}
		return writeMarshaler(w, ans)
	})
}

// decodeKVList reads a list body; its refusals are in the KV shape.
func decodeKVList(body []byte) (KVListQuery, error) {
	var q KVListQuery
	o, err := asObject(body, "the body")
	if err != nil {
		return q, asKV(err, ReasonKVBadBody)
	}
	for _, f := range []struct {
		k      string
		p      *string
		n      *contract.Name
		reason string
	}{{"namespace", &q.Namespace, contract.KVNamespace, ReasonKVBadNamespace}, {"prefix", &q.Prefix, contract.KVKey, ReasonKVBadKey},
		{"after", &q.After, contract.KVKey, ReasonKVBadKey}} {
		v, err := o.name(f.k, f.k, f.n)
		if err != nil {
			return q, asKV(err, f.reason)
		}
		*f.p = v
	}
	if q.Namespace == "" {
		return q, kvError(http.StatusBadRequest, ReasonKVBadNamespace, "namespace is required")
	}
	limit, _, err := o.integer("limit", "limit", contract.KVLimit, 0)
	if err != nil {
		return q, asKV(err, ReasonKVBadField)
	}
	q.Limit = int(limit)
	for _, f := range []struct {
		k string
		p *bool
	}{{"keysOnly", &q.KeysOnly}, {"includeExpired", &q.IncludeExpired}} {
		v, _, err := o.boolean(f.k, f.k)
		if err != nil {
			return q, asKV(err, ReasonKVBadField)
		}
		*f.p = v
	}
	return q, nil
}

// writeMarshaler answers 200 with ans's JSON.
func writeMarshaler(w http.ResponseWriter, ans json.Marshaler) error {
	raw, err := ans.MarshalJSON()
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, append(raw, '\n'))
	return nil
}

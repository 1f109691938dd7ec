package httpd

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/queen-mq/queen-go/contract"
)

// The limits of a KV namespace and key (API.md §5):
// contract.KVNamespace's and contract.KVKey's MaxBytes.
const (
	MaxKVNamespaceBytes = contract.KVMaxNamespaceBytes
	MaxKVKeyBytes       = contract.KVMaxKeyBytes
)

// kvCall is POST /api/v1/kv: the broker's answer as it marshals itself,
// 200 also when a required op was not applied (ok false).
func (s *server) kvCall() http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		ops, err := decodeKVBody(s, r, decodeKVCall)
		if err != nil {
			return err
		}
		raw, err := s.runKV(r, ops)
		if err != nil {
			return err
		}
		writeRaw(w, http.StatusOK, raw)
		return nil
	})
}

// decodeKVBody reads a KV route's JSON body and decodes it; a body that
// is not JSON is refused in the KV shape (kv_bad_body).
func decodeKVBody[T any](s *server, r *http.Request, decode func([]byte) (T, error)) (T, error) {
	body, err := s.body(r)
	if err != nil {
		var zero T
		return zero, asKV(err, ReasonKVBadBody)
	}
	return decode(body)
}

// runKV runs one KV call and returns the answer's JSON.
func (s *server) runKV(r *http.Request, ops []KVOp) ([]byte, error) {
	ans, err := s.b.KV(r.Context(), tenantOf(r), ops)
	if err != nil {
		return nil, err
	}
	if ans == nil {
		return nil, errors.New("httpd: broker answered a KV call with nil")
	}
	raw, err := ans.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("httpd: marshal KV answer: %w", err)
	}
	if !json.Valid(raw) {
		return nil, errors.New("httpd: the KV answer is not JSON")
	}
	return raw, nil
}

// kvGet is GET /api/v1/kv/:ns/*key: the get's element, with ETag
// "<version>" on a hit.
func (s *server) kvGet() http.Handler {
	return s.kvKeyRoute(kvNoBody, func(ns, key string, _ KVOp) KVOp { return KVOp{Op: "get", NS: ns, Key: key} })
}

// kvPut is PUT /api/v1/kv/:ns/*key: a put of the body's value, ttlSeconds,
// forever, expect and required.
func (s *server) kvPut() http.Handler {
	return s.kvKeyRoute(kvBodyRequired, func(ns, key string, in KVOp) KVOp {
		return KVOp{Op: "put", NS: ns, Key: key, Value: in.Value,
			TTLSeconds: in.TTLSeconds, Forever: in.Forever, Expect: in.Expect, Required: in.Required}
	})
}

// kvDelete is DELETE /api/v1/kv/:ns/*key, with an optional body {expect,
// required}.
func (s *server) kvDelete() http.Handler {
	return s.kvKeyRoute(kvBodyOptional, func(ns, key string, in KVOp) KVOp {
		return KVOp{Op: "delete", NS: ns, Key: key, Expect: in.Expect, Required: in.Required}
	})
}

// kvBodyRule is what a single-key route takes as a body: none (GET), a
// required one (PUT) or an optional one (DELETE).
type kvBodyRule int

const (
	kvNoBody kvBodyRule = iota
	kvBodyRequired
	kvBodyOptional
)

// kvKeyRoute serves a single-key route: the path's namespace and key, the
// body's fields as body says, and the one op build makes of them.
func (s *server) kvKeyRoute(body kvBodyRule, build func(ns, key string, in KVOp) KVOp) http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		ns, key, err := kvPath(r)
		if err != nil {
			return err
		}
		var in KVOp
		if body != kvNoBody {
			if in, err = s.kvBody(r, body == kvBodyOptional); err != nil {
				return err
			}
		}
		return s.kvSingle(w, r, build(ns, key, in))
	})
}

// kvPath reads the namespace and key of a single-key route and checks
// them, and that the URL has no query string.
func kvPath(r *http.Request) (ns, key string, err error) {
	if r.URL.RawQuery != "" || r.URL.ForceQuery {
		return "", "", kvError(http.StatusBadRequest, ReasonKVNoQueryString, "single-key routes take no query string")
	}
	ns, ok := urlParam(r, "ns")
	if !ok {
		return "", "", kvError(http.StatusBadRequest, ReasonKVBadNamespace, "the namespace is not a valid path segment")
	}
	if key, ok = urlParam(r, "*"); !ok {
		return "", "", kvError(http.StatusBadRequest, ReasonKVBadKey, "the key is not a valid path")
	}
	if err := contract.KVNamespace.Check("namespace", ns); err != nil {
		return "", "", contractError(err)
	}
	if err := contract.KVKey.Check("key", key); err != nil {
		return "", "", contractError(err)
	}
	return ns, key, nil
}

// kvPathFields are the body fields a single-key route takes from its path.
var kvPathFields = []string{"op", "ns", "namespace", "key"}

// kvBody reads the body of a single-key PUT or DELETE (optional when
// optional is true): an object without the path's fields.
func (s *server) kvBody(r *http.Request, optional bool) (KVOp, error) {
	var op KVOp
	body, err := readBody(r, s.maxBody)
	if err != nil {
		return op, err
	}
	if optional && firstByte(body) == 0 {
		return op, nil
	}
	if err := parseJSON(body); err != nil {
		return op, asKV(err, ReasonKVBadBody)
	}
	o, err := asObject(body, "the body")
	if err != nil {
		return op, asKV(err, ReasonKVBadBody)
	}
	for _, f := range kvPathFields {
		if _, ok := o[f]; ok {
			return op, kvError(http.StatusBadRequest, ReasonKVFieldInPath, "%s is given by the path, not the body", f)
		}
	}
	err = decodeKVOp(o, "the body", &op)
	return op, err
}

// kvSingle runs a single-key call and answers its one element (or, when
// its required op was not applied, the whole kv_precondition answer).
func (s *server) kvSingle(w http.ResponseWriter, r *http.Request, op KVOp) error {
	raw, err := s.runKV(r, []KVOp{op})
	if err != nil {
		return err
	}
	var ans struct {
		OK      *bool             `json:"ok"`
		Results []json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		return fmt.Errorf("httpd: read KV answer: %w", err)
	}
	switch {
	case len(ans.Results) == 1:
		raw = ans.Results[0]
	case ans.OK != nil && !*ans.OK:
		writeRaw(w, http.StatusOK, raw)
		return nil
	default:
		return fmt.Errorf("httpd: KV answer has %d results for one op", len(ans.Results))
	}
	if op.Op == "get" {
		var hit struct {
			Found   bool    `json:"found"`
			Version *uint64 `json:"version"`
		}
		if json.Unmarshal(raw, &hit) == nil && hit.Found && hit.Version != nil {
			w.Header().Set("ETag", `"`+strconv.FormatUint(*hit.Version, 10)+`"`)
		}
	}
	writeRaw(w, http.StatusOK, raw)
	return nil
}

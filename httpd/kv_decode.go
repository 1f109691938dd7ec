package httpd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/queen-mq/queen-go/contract"
)

// decodeKVCall reads the ops of POST /api/v1/kv from a valid JSON body:
// {"operations":[…]} or a bare array. Errors are *Error in the KV shape.
func decodeKVCall(body []byte) ([]KVOp, error) {
	raw := json.RawMessage(body)
	if firstByte(body) == '{' {
		o, err := asObject(body, "the body")
		if err != nil {
			return nil, asKV(err, ReasonKVBadBody)
		}
		if isNull(o["operations"]) {
			return nil, kvError(http.StatusBadRequest, ReasonKVBadBody, "operations is required")
		}
		raw = o["operations"]
	}
	list, err := asArray(raw, "operations")
	if err != nil {
		return nil, asKV(err, ReasonKVBadBody)
	}
	ops := make([]KVOp, len(list))
	for i, raw := range list {
		path := fmt.Sprintf("operations[%d]", i)
		o, err := asObject(raw, path)
		if err != nil {
			return nil, asKV(err, ReasonKVBadBody)
		}
		if err := decodeKVOp(o, path, &ops[i]); err != nil {
			return nil, err
		}
	}
	return ops, nil
}

// kvFieldReasons names the reason of a field of the wrong JSON type.
var kvFieldReasons = map[string]string{
	"op":         "kv_unknown_op",
	"ns":         ReasonKVBadNamespace,
	"namespace":  ReasonKVBadNamespace,
	"key":        ReasonKVBadKey,
	"keys":       ReasonKVBadKey,
	"prefix":     ReasonKVBadKey,
	"after":      ReasonKVBadKey,
	"ttlSeconds": "kv_bad_ttl",
	"forever":    "kv_bad_ttl",
	"expect":     "kv_bad_expect",
	"delta":      "kv_bad_delta",
	"min":        "kv_bad_bounds",
	"max":        "kv_bad_bounds",
}

// kvFieldError re-shapes a field's type error as a KV error with the
// field's reason.
func kvFieldError(err error, field string) error {
	reason, ok := kvFieldReasons[field]
	if !ok {
		reason = ReasonKVBadField
	}
	return asKV(err, reason)
}

// decodeKVOp checks the JSON types of one op's fields (their values are
// the broker's to check) and fills op. The tenant is never an input.
func decodeKVOp(o object, path string, op *KVOp) error {
	if _, ok := o["tenant"]; ok {
		return kvError(http.StatusBadRequest, ReasonKVTenantNotInput, "%s.tenant: the tenant is the caller's, not an input", path)
	}
	strs := []struct {
		k string
		p *string
	}{{"op", &op.Op}, {"ns", &op.NS}, {"namespace", &op.Namespace}, {"key", &op.Key},
		{"prefix", &op.Prefix}, {"after", &op.After}}
	for _, f := range strs {
		v, _, err := o.str(f.k, path+"."+f.k)
		if err != nil {
			return kvFieldError(err, f.k)
		}
		*f.p = v
	}
	bools := []struct {
		k string
		p *bool
	}{{"keysOnly", &op.KeysOnly}, {"forever", &op.Forever}, {"required", &op.Required}}
	for _, f := range bools {
		v, _, err := o.boolean(f.k, path+"."+f.k)
		if err != nil {
			return kvFieldError(err, f.k)
		}
		*f.p = v
	}
	ints := []struct {
		k string
		p **int64
	}{{"ttlSeconds", &op.TTLSeconds}, {"expect", &op.Expect}}
	for _, f := range ints {
		// The broker checks the values (kv_bad_ttl, kv_bad_expect against
		// contract.KVTTLSeconds and KVExpect); here they must be integers
		// that int64 holds.
		v, ok, err := o.integer(f.k, path+"."+f.k, contract.Int64(f.k), 0)
		if err != nil {
			return kvFieldError(err, f.k)
		}
		if ok {
			*f.p = &v
		}
	}
	// kvstore clamps limit (0: its default); here it must be an integer.
	limit, _, err := o.integer("limit", path+".limit", contract.Int64("limit"), 0)
	if err != nil {
		return kvFieldError(err, "limit")
	}
	op.Limit = int(limit)
	nums := []struct {
		k string
		p *json.Number
	}{{"delta", &op.Delta}, {"min", &op.Min}, {"max", &op.Max}}
	for _, f := range nums {
		raw := o[f.k]
		if isNull(raw) {
			continue
		}
		if c := firstByte(raw); c != '-' && (c < '0' || c > '9') {
			return kvFieldError(badRequest("%s.%s must be a number", path, f.k), f.k)
		}
		*f.p = json.Number(bytes.TrimSpace(raw))
	}
	if raw := o["keys"]; !isNull(raw) {
		list, err := asArray(raw, path+".keys")
		if err != nil {
			return kvFieldError(err, "keys")
		}
		keys := object{}
		op.Keys = make([]string, len(list))
		for i, k := range list {
			keys["k"] = k
			if op.Keys[i], _, err = keys.str("k", fmt.Sprintf("%s.keys[%d]", path, i)); err != nil {
				return kvFieldError(err, "keys")
			}
		}
	}
	if raw, ok := o["value"]; ok {
		op.Value = bytes.TrimSpace(raw)
	}
	switch {
	case op.NS == "":
		op.NS = op.Namespace
	case op.Namespace != "" && op.Namespace != op.NS:
		return kvError(http.StatusBadRequest, ReasonKVBadNamespace, "%s: ns %q and namespace %q differ", path, op.NS, op.Namespace)
	}
	return checkKVNames(op, path)
}

// checkKVNames checks the names an op gives against the contract (the
// broker checks again, and says what is missing).
func checkKVNames(op *KVOp, path string) error {
	if op.NS != "" {
		if err := contract.KVNamespace.Check(path+".ns", op.NS); err != nil {
			return contractError(err)
		}
	}
	for _, k := range append([]string{op.Key, op.Prefix, op.After}, op.Keys...) {
		if k == "" {
			continue
		}
		if err := contract.KVKey.Check(path+".key", k); err != nil {
			return contractError(err)
		}
	}
	return nil
}

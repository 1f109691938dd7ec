package httpd

import (
	"bytes"
	"encoding/json"
	"errors"
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
	var namespace string
	err := readKVFields(path, []kvField[string]{{"op", &op.Op}, {"ns", &op.NS}, {"namespace", &namespace},
		{"key", &op.Key}, {"prefix", &op.Prefix}, {"after", &op.After}}, o.str)
	if err == nil {
		err = readKVFields(path, []kvField[bool]{{"keysOnly", &op.KeysOnly}, {"forever", &op.Forever},
			{"required", &op.Required}}, o.boolean)
	}
	if err == nil {
		// The broker checks the values (kv_bad_ttl, kv_bad_expect against
		// contract.KVTTLSeconds and KVExpect); here they must be integers
		// that int64 holds.
		err = readKVFields(path, []kvField[*int64]{{"ttlSeconds", &op.TTLSeconds}, {"expect", &op.Expect}},
			func(k, path string) (*int64, bool, error) {
				v, ok, err := o.integer(k, path, contract.Int64(k), 0)
				if !ok || err != nil {
					return nil, ok, err
				}
				return &v, true, nil
			})
	}
	if err != nil {
		return err
	}
	// kvstore clamps limit (0: its default); here it must be an integer.
	limit, _, err := o.integer("limit", path+".limit", contract.Int64("limit"), 0)
	if err != nil {
		return kvFieldError(err, "limit")
	}
	op.Limit = int(limit)
	err = readKVFields(path, []kvField[json.Number]{{"delta", &op.Delta}, {"min", &op.Min}, {"max", &op.Max}},
		func(k, path string) (json.Number, bool, error) {
			raw := o[k]
			if isNull(raw) {
				return "", false, nil
			}
			if c := firstByte(raw); c != '-' && (c < '0' || c > '9') {
				return "", false, badRequest("%s must be a number", path)
			}
			return json.Number(bytes.TrimSpace(raw)), true, nil
		})
	if err != nil {
		return err
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
	ns, err := contract.KVNamespaceOf(path, op.NS, namespace)
	if err != nil {
		return kvRefusal(err)
	}
	op.NS = ns
	// The broker checks again, whole, and says what is missing.
	return contractError(op.CheckNames(path))
}

// kvField is an op field of JSON type T and where it goes.
type kvField[T any] struct {
	k string
	p *T
}

// readKVFields reads fields in order with read (object.str, .boolean, …),
// a field of the wrong type refused with its reason (kvFieldError).
func readKVFields[T any](path string, fields []kvField[T], read func(k, path string) (T, bool, error)) error {
	for _, f := range fields {
		v, _, err := read(f.k, path+"."+f.k)
		if err != nil {
			return kvFieldError(err, f.k)
		}
		*f.p = v
	}
	return nil
}

// KVRefusal is the answer to a KV call the contract refuses: a
// *contract.KVError of the TooLarge class is a 413 payload_too_large, any
// other a 400 kv_bad_request, with its reason and detail. It is the one
// mapping of the class to HTTP, for httpd's own refusals and the broker's.
func KVRefusal(e *contract.KVError) *Error {
	status, code := http.StatusBadRequest, CodeKVBadRequest
	if e.TooLarge() {
		status, code = http.StatusRequestEntityTooLarge, CodePayloadTooLarge
	}
	return &Error{Status: status, Code: code, Message: e.Error(), Reason: e.Reason, Detail: e.Detail}
}

// kvRefusal maps err with KVRefusal when it is a *contract.KVError.
func kvRefusal(err error) error {
	var e *contract.KVError
	if errors.As(err, &e) {
		return KVRefusal(e)
	}
	return err
}

package contract

import (
	"encoding/json"
	"fmt"
)

// KVOp is one op of a KV call (API.md §5), field for field its JSON: the
// one type the HTTP API decodes a call into (httpd), the broker proposes
// and the state machine applies (kvstore, whose Op it is). Which fields
// count depends on Op; the others are ignored. CheckKVCall says what a
// call of them may hold.
type KVOp struct {
	// Op is one of the KV op names: get, getMany, getPrefix, put,
	// putIfAbsent, delete, incr, check.
	Op string `json:"op"`
	// NS is the namespace (KVNamespace): ^[a-z0-9][a-z0-9._-]{0,63}$. The
	// JSON may spell it "namespace" (KVNamespaceOf resolves the two).
	NS string `json:"ns"`
	// Key is the row's key (KVKey): 1..512 bytes, no NUL. Every op but
	// getMany and getPrefix names one.
	Key string `json:"key,omitempty"`
	// Keys are getMany's keys.
	Keys []string `json:"keys,omitempty"`
	// Prefix, Limit, After and KeysOnly page a getPrefix: rows whose key
	// starts with Prefix (required) and sorts after After (exclusive), at
	// most Limit of them (0 means KVDefaultLimit; clamped to 1..KVMaxLimit),
	// without values when KeysOnly.
	Prefix   string `json:"prefix,omitempty"`
	Limit    int    `json:"limit,omitempty"`
	After    string `json:"after,omitempty"`
	KeysOnly bool   `json:"keysOnly,omitempty"`
	// Value is put's and putIfAbsent's value: JSON text, stored compacted,
	// at most KVMaxValueBytes so. JSON null is a value; nil means none was
	// given.
	Value json.RawMessage `json:"value,omitempty"`
	// Expiry of put, putIfAbsent and incr: exactly one of TTLSeconds
	// (1..KVMaxTTLSeconds) or Forever. incr applies it only when it creates
	// the row.
	TTLSeconds *int64 `json:"ttlSeconds,omitempty"`
	Forever    bool   `json:"forever,omitempty"`
	// Expect is the version the row must be at: nil for none, 0 for
	// "absent", N > 0 for "at version N" (a put never creates then).
	// Mandatory for check; 0 or nil for putIfAbsent; refused on incr.
	Expect *int64 `json:"expect,omitempty"`
	// Required makes a write or check that is not applied roll back the
	// whole call: nothing of it is written.
	Required bool `json:"required,omitempty"`
	// Delta, Min and Max are incr's JSON numbers; Min and Max are optional
	// inclusive bounds of the result ("" for none).
	Delta json.Number `json:"delta,omitempty"`
	Min   json.Number `json:"min,omitempty"`
	Max   json.Number `json:"max,omitempty"`
}

// The KV op names of API.md §5, as they appear in KVOp.Op and in answers.
const (
	KVGet         = "get"
	KVGetMany     = "getMany"
	KVGetPrefix   = "getPrefix"
	KVPut         = "put"
	KVPutIfAbsent = "putIfAbsent"
	KVDelete      = "delete"
	KVIncr        = "incr"
	KVCheck       = "check"
)

// The bounds of a KV call (API.md §5). A namespace's and a key's rules are
// KVNamespace's and KVKey's; ttlSeconds' range is KVTTLSeconds and a
// getPrefix's limit KVLimit.
const (
	KVMaxOps            = 256      // ops per call
	KVMaxKeys           = 1024     // keys per call, getMany's each counted
	KVMaxNamespaceBytes = 64       // bytes of a namespace
	KVMaxKeyBytes       = 512      // bytes of a key, a prefix or an after
	KVMaxValueBytes     = 64 << 10 // bytes of a compacted value
	KVDefaultLimit      = 100      // getPrefix rows when Limit is 0
	KVMaxLimit          = 1000     // getPrefix rows at most
	KVMaxTTLSeconds     = 100 * 366 * 24 * 3600
)

// The reasons of a KVError. API.md §5 names most of them; the contract
// leaves the shape errors of incr (delta, bounds) and of a value (missing,
// not JSON) unnamed, and these are the names chosen for them.
const (
	KVReasonUnknownOp      = "kv_unknown_op"
	KVReasonBadNamespace   = "kv_bad_namespace"
	KVReasonBadKey         = "kv_bad_key"
	KVReasonKeyTooLarge    = "kv_key_too_large"
	KVReasonValueTooLarge  = "kv_value_too_large"
	KVReasonBadValue       = "kv_bad_value"
	KVReasonBadTTL         = "kv_bad_ttl"
	KVReasonExpiryNotGiven = "kv_expiry_not_specified"
	KVReasonBadExpect      = "kv_bad_expect"
	KVReasonBadDelta       = "kv_bad_delta"
	KVReasonBadBounds      = "kv_bad_bounds"
	KVReasonTooManyOps     = "kv_too_many_ops"
	KVReasonTooManyKeys    = "kv_too_many_keys"
	KVReasonDuplicateKey   = "kv_duplicate_key_in_call"
	KVReasonPrefixRequired = "kv_prefix_required"
)

// KVError refuses a KV call before anything of it is proposed or read: its
// reason, the op at fault and what was wrong. Its class is TooLarge (a key
// or a value over its bound) or a bad request; the HTTP layer maps the two
// to 413 payload_too_large and 400 kv_bad_request (httpd.KVRefusal).
type KVError struct {
	// Reason is the kv_* reason, one of the KVReason* constants.
	Reason string
	// Index is the op at fault, or -1 when it is the whole call.
	Index int
	// Detail says what was wrong, for a person.
	Detail string
}

func (e *KVError) Error() string {
	if e.Index >= 0 {
		return fmt.Sprintf("kvstore: %s: op %d: %s", e.Reason, e.Index, e.Detail)
	}
	return fmt.Sprintf("kvstore: %s: %s", e.Reason, e.Detail)
}

// TooLarge reports whether the call was refused for the size of a key or
// a value (a 413 on the wire) rather than its shape (a 400).
func (e *KVError) TooLarge() bool {
	return e.Reason == KVReasonKeyTooLarge || e.Reason == KVReasonValueTooLarge
}

// kvRefusal is a KVError of reason at op index. Its detail quotes at most
// ClipBytes of each string argument, so no answer echoes a large input.
func kvRefusal(index int, reason, format string, args ...any) *KVError {
	return &KVError{Reason: reason, Index: index, Detail: fmt.Sprintf(format, ClipArgs(args)...)}
}

// KVNamespaceOf resolves the namespace an op's JSON names: "ns", or its
// alias "namespace" when ns is empty; both given must agree (else a
// KVError kv_bad_namespace naming path, the op's place in the body).
func KVNamespaceOf(path, ns, namespace string) (string, error) {
	switch {
	case ns == "":
		return namespace, nil
	case namespace != "" && namespace != ns:
		return "", kvRefusal(-1, KVReasonBadNamespace, "%s: ns %q and namespace %q differ", path, ns, namespace)
	}
	return ns, nil
}

package contract

import (
	"bytes"
	"encoding/json"
	"errors"
)

// CheckKVCall checks a call's ops against API.md §5: at most KVMaxOps ops
// and KVMaxKeys keys, at most one write per key, and each op's own rules
// (its name, namespace and keys, expect, expiry, value, delta and bounds).
// It is the one check of a call's values: kvstore runs it before anything
// is proposed or read. Its errors are *KVError, the first op at fault
// first.
//
// values[i] is op i's value compacted (put and putIfAbsent; nil for the
// others): what the store keeps. compare orders two JSON numbers exactly
// (incr's min and max; kvstore's decimals, as contract imports only the
// standard library); it is called only on two valid numbers.
func CheckKVCall(ops []KVOp, compare func(a, b string) int) (values [][]byte, err error) {
	if len(ops) > KVMaxOps {
		return nil, kvRefusal(-1, KVReasonTooManyOps, "%d ops, at most %d", len(ops), KVMaxOps)
	}
	values = make([][]byte, len(ops))
	keys := 0
	written := map[string]int{} // ns NUL key → op index; never iterated
	for i := range ops {
		o := &ops[i]
		if values[i], err = checkKVOp(i, o, compare); err != nil {
			return nil, err
		}
		if o.Op == KVGetMany {
			keys += len(o.Keys)
		} else {
			keys++
		}
		if keys > KVMaxKeys {
			return nil, kvRefusal(i, KVReasonTooManyKeys, "more than %d keys in the call", KVMaxKeys)
		}
		if KVWrites(o.Op) {
			id := o.NS + "\x00" + o.Key
			if j, dup := written[id]; dup {
				return nil, kvRefusal(i, KVReasonDuplicateKey, "op %d writes %s/%q already", j, o.NS, o.Key)
			}
			written[id] = i
		}
	}
	return values, nil
}

// KVWrites reports whether an op of that name writes a row: a call holding
// one is proposed, and holds at most one such op per key.
func KVWrites(op string) bool {
	return op == KVPut || op == KVPutIfAbsent || op == KVDelete || op == KVIncr
}

// kvKnown reports whether op names a KV op.
func kvKnown(op string) bool {
	switch op {
	case KVGet, KVGetMany, KVGetPrefix, KVCheck:
		return true
	}
	return KVWrites(op)
}

func checkKVOp(i int, o *KVOp, compare func(a, b string) int) ([]byte, error) {
	if !kvKnown(o.Op) {
		return nil, kvRefusal(i, KVReasonUnknownOp, "unknown op %q", o.Op)
	}
	if err := KVNamespace.Check("namespace", o.NS); err != nil {
		return nil, kvRefusal(i, KVReasonBadNamespace, "namespace %q is not ^[a-z0-9][a-z0-9._-]{0,63}$", o.NS)
	}
	if err := checkKVKeys(i, o); err != nil {
		return nil, err
	}
	if err := checkKVExpect(i, o); err != nil {
		return nil, err
	}
	switch o.Op {
	case KVPut, KVPutIfAbsent:
		if err := checkKVExpiry(i, o); err != nil {
			return nil, err
		}
		return compactKVValue(i, o.Value)
	case KVIncr:
		if err := checkKVExpiry(i, o); err != nil {
			return nil, err
		}
		return nil, checkKVIncr(i, o, compare)
	}
	return nil, nil
}

// checkKVKeys checks the keys an op names: getMany's Keys, getPrefix's
// Prefix (required) and After, every other op's Key.
func checkKVKeys(i int, o *KVOp) error {
	switch o.Op {
	case KVGetMany:
		for _, k := range o.Keys {
			if err := CheckKVKey(i, "key", k); err != nil {
				return err
			}
		}
	case KVGetPrefix:
		if o.Prefix == "" {
			return kvRefusal(i, KVReasonPrefixRequired, "getPrefix needs a non-empty prefix")
		}
		if err := CheckKVKey(i, "prefix", o.Prefix); err != nil {
			return err
		}
		if o.After != "" {
			return CheckKVKey(i, "after", o.After)
		}
	default:
		return CheckKVKey(i, "key", o.Key)
	}
	return nil
}

// checkKVExpect applies the expect rules: none on incr, mandatory on
// check, 0 only on putIfAbsent, never negative, and never 0 on delete
// (a delete that needs the row absent could never delete anything).
func checkKVExpect(i int, o *KVOp) error {
	e := o.Expect
	switch {
	case o.Op == KVPutIfAbsent:
		if e != nil && *e != 0 {
			return kvRefusal(i, KVReasonBadExpect, "putIfAbsent takes no expect but 0, got %d", *e)
		}
	case o.Op == KVIncr && e != nil:
		return kvRefusal(i, KVReasonBadExpect, "incr takes no expect")
	case o.Op == KVCheck && e == nil:
		return kvRefusal(i, KVReasonBadExpect, "check needs expect")
	case !KVWrites(o.Op) && o.Op != KVCheck || e == nil:
	case *e < 0:
		return kvRefusal(i, KVReasonBadExpect, "expect %d is negative", *e)
	case o.Op == KVDelete && *e == 0:
		return kvRefusal(i, KVReasonBadExpect, "delete with expect 0 could never delete")
	}
	return nil
}

// checkKVExpiry checks the expiry of an op that takes one: exactly one of
// ttlSeconds and forever.
func checkKVExpiry(i int, o *KVOp) error {
	switch {
	case o.TTLSeconds != nil && o.Forever:
		return kvRefusal(i, KVReasonExpiryNotGiven, "give ttlSeconds or forever, not both")
	case o.Forever:
	case o.TTLSeconds == nil:
		return kvRefusal(i, KVReasonExpiryNotGiven, "%s needs ttlSeconds or forever:true", o.Op)
	case *o.TTLSeconds <= 0 || *o.TTLSeconds > KVMaxTTLSeconds:
		return kvRefusal(i, KVReasonBadTTL, "ttlSeconds %d is outside 1..%d", *o.TTLSeconds, KVMaxTTLSeconds)
	}
	return nil
}

// compactKVValue is a value as the store keeps it: JSON text, compacted,
// at most KVMaxValueBytes.
func compactKVValue(i int, v json.RawMessage) ([]byte, error) {
	if v == nil {
		return nil, kvRefusal(i, KVReasonBadValue, "a value is required (JSON null is one)")
	}
	if !json.Valid(v) {
		return nil, kvRefusal(i, KVReasonBadValue, "the value is not JSON")
	}
	var b bytes.Buffer
	b.Grow(len(v))
	if err := json.Compact(&b, v); err != nil {
		return nil, kvRefusal(i, KVReasonBadValue, "the value is not JSON: %v", err)
	}
	if b.Len() > KVMaxValueBytes {
		return nil, kvRefusal(i, KVReasonValueTooLarge, "value of %d bytes compacted, at most %d", b.Len(), KVMaxValueBytes)
	}
	return b.Bytes(), nil
}

// checkKVIncr checks incr's numbers: delta a JSON number, min and max
// numbers when given, min not above max.
func checkKVIncr(i int, o *KVOp, compare func(a, b string) int) error {
	if !IsJSONNumber(string(o.Delta)) {
		return kvRefusal(i, KVReasonBadDelta, "delta %q is not a JSON number", o.Delta)
	}
	for _, b := range []json.Number{o.Min, o.Max} {
		if b != "" && !IsJSONNumber(string(b)) {
			return kvRefusal(i, KVReasonBadBounds, "bound %q is not a JSON number", b)
		}
	}
	if o.Min != "" && o.Max != "" && compare(string(o.Min), string(o.Max)) > 0 {
		return kvRefusal(i, KVReasonBadBounds, "min %s is above max %s", o.Min, o.Max)
	}
	return nil
}

// CheckKVKey checks a key (or a prefix, or an after) of op index named
// field: a KVError kv_bad_key, or kv_key_too_large past KVMaxKeyBytes.
func CheckKVKey(index int, field, k string) error {
	err := KVKey.Check(field, k)
	var ne *NameError
	switch {
	case !errors.As(err, &ne):
		return err
	case ne.TooLong():
		return kvRefusal(index, KVReasonKeyTooLarge, "%s", err)
	}
	return kvRefusal(index, KVReasonBadKey, "%s", err)
}

// CheckNames checks the names an op's JSON gives, where a decoder reads
// it at path ("operations[2]"): its namespace and keys when not empty,
// against KVNamespace and KVKey. Its errors are *NameError; CheckKVCall
// checks the op whole, empty names too.
func (o *KVOp) CheckNames(path string) error {
	if o.NS != "" {
		if err := KVNamespace.Check(path+".ns", o.NS); err != nil {
			return err
		}
	}
	for _, k := range append([]string{o.Key, o.Prefix, o.After}, o.Keys...) {
		if k == "" {
			continue
		}
		if err := KVKey.Check(path+".key", k); err != nil {
			return err
		}
	}
	return nil
}

// CheckKVList checks the names of a page of a namespace's rows (the
// console's list): the namespace, and the prefix and after when given.
// Its errors are *KVError of the whole call (Index -1).
func CheckKVList(ns, prefix, after string) error {
	if err := KVNamespace.Check("namespace", ns); err != nil {
		return kvRefusal(-1, KVReasonBadNamespace, "%s", err)
	}
	for _, k := range []struct{ field, v string }{{"prefix", prefix}, {"after", after}} {
		if k.v != "" {
			if err := CheckKVKey(-1, k.field, k.v); err != nil {
				return err
			}
		}
	}
	return nil
}

// IsJSONNumber reports whether s is a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, the grammar CheckJSON
// reads a number by.
func IsJSONNumber(s string) bool {
	end, fault := scanNumber(s, 0)
	return fault == numberOK && end == len(s)
}

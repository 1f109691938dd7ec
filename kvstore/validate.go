package kvstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"github.com/queen-mq/queen-go/contract"
)

// The limits of API.md §5. A namespace's and a key's rules are
// contract.KVNamespace's and contract.KVKey's, and ttlSeconds' range is
// contract.KVTTLSeconds.
const (
	MaxOps           = 256      // ops per call
	MaxKeys          = 1024     // keys per call, getMany's each counted
	MaxKeyBytes      = 512      // bytes of a key
	MaxValueBytes    = 64 << 10 // bytes of a compacted value
	ReadBudget       = 4 << 20  // bytes of keys and values a call reads before results say truncated
	DefaultPageLimit = 100      // getPrefix rows when Limit is 0
	MaxPageLimit     = 1000     // getPrefix rows at most
	MaxTTLSeconds    = 100 * 366 * 24 * 3600
)

// opKind is an op's number in the call codec; it never changes meaning.
type opKind uint8

const (
	kindGet opKind = 1 + iota
	kindGetMany
	kindGetPrefix
	kindPut
	kindPutIfAbsent
	kindDelete
	kindIncr
	kindCheck
	kindEnd // one past the last
)

var kindNames = [kindEnd]string{"", OpGet, OpGetMany, OpGetPrefix, OpPut, OpPutIfAbsent, OpDelete, OpIncr, OpCheck}

func kindOf(name string) opKind {
	for k := kindGet; k < kindEnd; k++ {
		if kindNames[k] == name {
			return k
		}
	}
	return 0
}

// writes reports whether ops of kind k write a row: a call holding one is
// proposed, and holds at most one such op per key.
func (k opKind) writes() bool {
	return k == kindPut || k == kindPutIfAbsent || k == kindDelete || k == kindIncr
}

// op is an Op checked and normalized: what the call codec carries and what
// evaluation reads.
type op struct {
	kind      opKind
	required  bool
	keysOnly  bool
	hasExpect bool
	ns        string
	key       string   // getPrefix: the prefix
	keys      []string // getMany
	after     string
	limit     uint32 // getPrefix, clamped
	ttl       int64  // seconds; 0 means forever (ops that take an expiry)
	expect    uint64
	value     []byte // put, putIfAbsent: compacted JSON
	delta     string // incr: JSON numbers; min and max "" when absent
	min, max  string
}

// call is one validated call: the tenant and its ops.
type call struct {
	tenant string
	ops    []op
}

// readOnly reports whether no op of c writes.
func (c *call) readOnly() bool {
	for i := range c.ops {
		if c.ops[i].kind.writes() {
			return false
		}
	}
	return true
}

// errEmptyTenant: the tenant is the caller's, never the client's; an
// empty one is a bug of the caller.
var errEmptyTenant = errors.New("kvstore: empty tenant")

// prepare checks ops against API.md §5 and normalizes them. Its errors are
// *Error, but for an empty tenant.
func prepare(tenant string, ops []Op) (*call, error) {
	if tenant == "" {
		return nil, errEmptyTenant
	}
	if len(ops) > MaxOps {
		return nil, badRequest(-1, ReasonTooManyOps, "%d ops, at most %d", len(ops), MaxOps)
	}
	c := &call{tenant: tenant, ops: make([]op, len(ops))}
	keys := 0
	written := map[string]int{} // ns NUL key → op index; never iterated
	for i := range ops {
		o, err := prepareOp(i, &ops[i])
		if err != nil {
			return nil, err
		}
		if o.kind == kindGetMany {
			keys += len(o.keys)
		} else {
			keys++
		}
		if keys > MaxKeys {
			return nil, badRequest(i, ReasonTooManyKeys, "more than %d keys in the call", MaxKeys)
		}
		if o.kind.writes() {
			id := o.ns + "\x00" + o.key
			if j, dup := written[id]; dup {
				return nil, badRequest(i, ReasonDuplicateKey, "op %d writes %s/%q already", j, o.ns, o.key)
			}
			written[id] = i
		}
		c.ops[i] = o
	}
	return c, nil
}

func prepareOp(i int, in *Op) (op, error) {
	o := op{kind: kindOf(in.Op), required: in.Required, ns: in.NS}
	if o.kind == 0 {
		return o, badRequest(i, ReasonUnknownOp, "unknown op %q", in.Op)
	}
	if err := contract.KVNamespace.Check("namespace", in.NS); err != nil {
		return o, badRequest(i, ReasonBadNamespace, "namespace %q is not ^[a-z0-9][a-z0-9._-]{0,63}$", in.NS)
	}
	switch o.kind {
	case kindGetMany:
		for _, k := range in.Keys {
			if err := checkKey(i, "key", k); err != nil {
				return o, err
			}
		}
		if len(in.Keys) > 0 {
			o.keys = slices.Clone(in.Keys)
		}
	case kindGetPrefix:
		if in.Prefix == "" {
			return o, badRequest(i, ReasonPrefixRequired, "getPrefix needs a non-empty prefix")
		}
		if err := checkKey(i, "prefix", in.Prefix); err != nil {
			return o, err
		}
		if in.After != "" {
			if err := checkKey(i, "after", in.After); err != nil {
				return o, err
			}
		}
		o.key, o.after, o.keysOnly = in.Prefix, in.After, in.KeysOnly
		o.limit = uint32(min(max(in.Limit, 1), MaxPageLimit))
		if in.Limit == 0 {
			o.limit = DefaultPageLimit
		}
	default:
		if err := checkKey(i, "key", in.Key); err != nil {
			return o, err
		}
		o.key = in.Key
	}
	if err := prepareExpect(i, in, &o); err != nil {
		return o, err
	}
	switch o.kind {
	case kindPut, kindPutIfAbsent, kindIncr:
		if err := prepareExpiry(i, in, &o); err != nil {
			return o, err
		}
	}
	switch o.kind {
	case kindPut, kindPutIfAbsent:
		v, err := compactValue(i, in.Value)
		if err != nil {
			return o, err
		}
		o.value = v
	case kindIncr:
		if !isNumber(string(in.Delta)) {
			return o, badRequest(i, ReasonBadDelta, "delta %q is not a JSON number", in.Delta)
		}
		for _, b := range []json.Number{in.Min, in.Max} {
			if b != "" && !isNumber(string(b)) {
				return o, badRequest(i, ReasonBadBounds, "bound %q is not a JSON number", b)
			}
		}
		if in.Min != "" && in.Max != "" && compareNumbers(string(in.Min), string(in.Max)) > 0 {
			return o, badRequest(i, ReasonBadBounds, "min %s is above max %s", in.Min, in.Max)
		}
		o.delta, o.min, o.max = string(in.Delta), string(in.Min), string(in.Max)
	}
	return o, nil
}

// prepareExpect applies the expect rules: none on incr, mandatory on
// check, 0 only on putIfAbsent, never negative, and never 0 on delete
// (a delete that needs the row absent could never delete anything).
func prepareExpect(i int, in *Op, o *op) error {
	e := in.Expect
	switch {
	case o.kind == kindPutIfAbsent:
		if e != nil && *e != 0 {
			return badRequest(i, ReasonBadExpect, "putIfAbsent takes no expect but 0, got %d", *e)
		}
		o.hasExpect = true
		return nil
	case o.kind == kindIncr && e != nil:
		return badRequest(i, ReasonBadExpect, "incr takes no expect")
	case o.kind == kindCheck && e == nil:
		return badRequest(i, ReasonBadExpect, "check needs expect")
	case !o.kind.writes() && o.kind != kindCheck || e == nil:
		return nil
	case *e < 0:
		return badRequest(i, ReasonBadExpect, "expect %d is negative", *e)
	case o.kind == kindDelete && *e == 0:
		return badRequest(i, ReasonBadExpect, "delete with expect 0 could never delete")
	}
	o.hasExpect, o.expect = true, uint64(*e)
	return nil
}

func prepareExpiry(i int, in *Op, o *op) error {
	switch {
	case in.TTLSeconds != nil && in.Forever:
		return badRequest(i, ReasonExpiryNotGiven, "give ttlSeconds or forever, not both")
	case in.Forever:
		o.ttl = 0
	case in.TTLSeconds == nil:
		return badRequest(i, ReasonExpiryNotGiven, "%s needs ttlSeconds or forever:true", in.Op)
	case *in.TTLSeconds <= 0 || *in.TTLSeconds > MaxTTLSeconds:
		return badRequest(i, ReasonBadTTL, "ttlSeconds %d is outside 1..%d", *in.TTLSeconds, MaxTTLSeconds)
	default:
		o.ttl = *in.TTLSeconds
	}
	return nil
}

func compactValue(i int, v json.RawMessage) ([]byte, error) {
	if v == nil {
		return nil, badRequest(i, ReasonBadValue, "a value is required (JSON null is one)")
	}
	if !json.Valid(v) {
		return nil, badRequest(i, ReasonBadValue, "the value is not JSON")
	}
	var b bytes.Buffer
	b.Grow(len(v))
	if err := json.Compact(&b, v); err != nil {
		return nil, badRequest(i, ReasonBadValue, "the value is not JSON: %v", err)
	}
	if b.Len() > MaxValueBytes {
		return nil, tooLarge(i, ReasonValueTooLarge, "value of %d bytes compacted, at most %d", b.Len(), MaxValueBytes)
	}
	return b.Bytes(), nil
}

func checkKey(i int, field, k string) error {
	err := contract.KVKey.Check(field, k)
	var ne *contract.NameError
	switch {
	case !errors.As(err, &ne):
		return err
	case ne.TooLong():
		return tooLarge(i, ReasonKeyTooLarge, "%s", err)
	}
	return badRequest(i, ReasonBadKey, "%s", err)
}

// checkCall checks again, where the call applies, the names its proposer
// checked: a follower trusts nothing of an entry.
func checkCall(c *call) error {
	if err := contract.Tenant.Check("tenant", c.tenant); err != nil {
		return err
	}
	for i := range c.ops {
		o := &c.ops[i]
		if err := contract.KVNamespace.Check("namespace", o.ns); err != nil {
			return err
		}
		keys := append([]string{o.key}, o.keys...)
		if o.kind == kindGetMany {
			keys = o.keys
		}
		if o.after != "" {
			keys = append(keys, o.after)
		}
		for _, k := range keys {
			if err := contract.KVKey.Check("key", k); err != nil {
				return err
			}
		}
	}
	return nil
}

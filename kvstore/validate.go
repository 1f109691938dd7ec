package kvstore

import (
	"errors"
	"slices"

	"github.com/queen-mq/queen-go/contract"
)

// The limits of API.md §5 that kvstore's callers use (contract's); the
// others are contract.KVMaxOps, KVMaxKeys, KVMaxKeyBytes and
// KVMaxTTLSeconds.
const (
	MaxValueBytes    = contract.KVMaxValueBytes // bytes of a compacted value
	DefaultPageLimit = contract.KVDefaultLimit  // getPrefix rows when Limit is 0
	MaxPageLimit     = contract.KVMaxLimit      // getPrefix rows at most
	ReadBudget       = 4 << 20                  // bytes of keys and values a call reads before results say truncated
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

// writes reports whether ops of kind k write a row (contract.KVWrites).
func (k opKind) writes() bool { return contract.KVWrites(kindNames[k]) }

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

// prepare checks ops against API.md §5 (contract.CheckKVCall) and
// normalizes them. Its errors are *contract.KVError, but for an empty
// tenant.
func prepare(tenant string, ops []Op) (*call, error) {
	if tenant == "" {
		return nil, errEmptyTenant
	}
	values, err := contract.CheckKVCall(ops, compareNumbers)
	if err != nil {
		return nil, err
	}
	c := &call{tenant: tenant, ops: make([]op, len(ops))}
	for i := range ops {
		c.ops[i] = normalize(&ops[i], values[i])
	}
	return c, nil
}

// normalize is a checked op as the call codec carries it; value is its
// value compacted.
func normalize(in *Op, value []byte) op {
	o := op{kind: kindOf(in.Op), required: in.Required, ns: in.NS, value: value}
	switch o.kind {
	case kindGetMany:
		if len(in.Keys) > 0 {
			o.keys = slices.Clone(in.Keys)
		}
	case kindGetPrefix:
		o.key, o.after, o.keysOnly = in.Prefix, in.After, in.KeysOnly
		o.limit = uint32(min(max(in.Limit, 1), MaxPageLimit))
		if in.Limit == 0 {
			o.limit = DefaultPageLimit
		}
	default:
		o.key = in.Key
	}
	switch {
	case o.kind == kindPutIfAbsent:
		o.hasExpect = true
	case in.Expect != nil && (o.kind.writes() || o.kind == kindCheck):
		o.hasExpect, o.expect = true, uint64(*in.Expect)
	}
	switch o.kind {
	case kindPut, kindPutIfAbsent, kindIncr:
		if !in.Forever {
			o.ttl = *in.TTLSeconds
		}
	}
	if o.kind == kindIncr {
		o.delta, o.min, o.max = string(in.Delta), string(in.Min), string(in.Max)
	}
	return o
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

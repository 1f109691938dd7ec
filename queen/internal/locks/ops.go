package locks

import (
	"errors"
	"fmt"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
)

// OpLocks is the raftlog op kind of the locks family: one call of up to
// MaxOps lock operations.
const OpLocks raftlog.OpKind = 768

// The contract's bounds (API.md §6).
const (
	MaxOps        = 64   // operations per call
	MaxSlots      = 4096 // semaphore slots per call, summed over its acquires
	MaxLimit      = 1024 // slots of one semaphore
	MaxNameBytes  = 256
	MaxOwnerBytes = 256
	// NS is the KV namespace of the permits' rows.
	NS = "queen-locks"
)

// The operations of a call (Op.Kind).
const (
	KindAcquire byte = 1
	KindRenew   byte = 2
	KindRelease byte = 3
	KindGet     byte = 4
)

// KindNames are the operations' names on the wire, by kind.
var KindNames = map[byte]string{KindAcquire: "acquire", KindRenew: "renew", KindRelease: "release", KindGet: "get"}

// ErrCorrupt is wrapped by the errors of a call that does not decode.
var ErrCorrupt = errors.New("locks: corrupt encoding")

// Op is one lock operation. Which fields count depends on Kind:
// acquire Name, Owner, Limit, TTLSeconds; renew Name, Token, Slot, Owner
// ("" any), TTLSeconds; release Name, Token, Slot; get Name.
type Op struct {
	Kind       byte
	Name       string
	Owner      string
	Limit      int
	TTLSeconds int64
	Token      uint64
	Slot       int
}

// Call is one POST /api/v1/locks: a tenant's operations, on distinct
// locks, each applied on its own (none depends on another).
type Call struct {
	Tenant string
	Ops    []Op
}

const codecVersion byte = 1

// Op returns the call as a raftlog op.
func (c *Call) Op() raftlog.Op { return raftlog.Op{Kind: OpLocks, Data: c.encode()} }

func (c *Call) encode() []byte {
	e := family.Encoder{codecVersion}
	e.Str(c.Tenant)
	e.Uvarint(uint64(len(c.Ops)))
	for _, o := range c.Ops {
		e.Byte(o.Kind)
		e.Str(o.Name, o.Owner)
		e.Uvarint(uint64(o.Limit), uint64(o.TTLSeconds), o.Token, uint64(o.Slot))
	}
	return e
}

// decodeCall reads a call and checks it as Check does.
func decodeCall(b []byte) (*Call, error) {
	c, err := family.Decode(b, ErrCorrupt, func(d *family.Decoder) *Call {
		d.Version(codecVersion, "version")
		c := &Call{Tenant: d.Str()}
		n := d.Count(7)
		for i := 0; i < n && d.Err == nil; i++ {
			o := Op{Kind: d.Byte(), Name: d.Str(), Owner: d.Str()}
			o.Limit, o.TTLSeconds = int(min(d.Uvarint(), MaxLimit+1)), int64(min(d.Uvarint(), maxTTL+1))
			o.Token, o.Slot = d.Uvarint(), int(min(d.Uvarint(), MaxLimit+1))
			c.Ops = append(c.Ops, o)
		}
		return c
	})
	if err != nil {
		return nil, err
	}
	if err := contract.Tenant.Check("tenant", c.Tenant); err != nil {
		return nil, err
	}
	if err := Check(c.Ops); err != nil {
		return nil, err
	}
	return c, nil
}

// maxTTL is the longest lifetime, in seconds (the KV's bound: 100 years).
const maxTTL = 100 * 365 * 24 * 3600

// Check refuses a call the contract refuses, naming the operation and
// its field: more than MaxOps operations or MaxSlots slots, two on one
// lock, a bad name, owner, lifetime, limit, token or slot. The proposer
// runs it before proposing and apply again.
func Check(ops []Op) error {
	if len(ops) > MaxOps {
		return fmt.Errorf("operations: %d operations, at most %d in one call", len(ops), MaxOps)
	}
	seen := make(map[string]int, len(ops))
	slots := 0
	for i, o := range ops {
		at := fmt.Sprintf("operations[%d]", i)
		if _, ok := KindNames[o.Kind]; !ok {
			return fmt.Errorf("%s.op: unknown operation (acquire, renew, release or get)", at)
		}
		if err := checkName(o.Name); err != nil {
			return fmt.Errorf("%s.%w", at, err)
		}
		if j, dup := seen[o.Name]; dup {
			return fmt.Errorf("%s.name: lock %q is in operations[%d] already; one operation per lock in a call", at, o.Name, j)
		}
		seen[o.Name] = i
		if o.Owner != "" || o.Kind == KindAcquire {
			if err := checkOwner(o.Owner); err != nil {
				return fmt.Errorf("%s.%w", at, err)
			}
		}
		if o.Kind == KindAcquire || o.Kind == KindRenew {
			if o.TTLSeconds <= 0 || o.TTLSeconds > maxTTL {
				return fmt.Errorf("%s.ttlSeconds: a whole number of seconds from 1 to %d is required (a lock has no forever)", at, maxTTL)
			}
		}
		if o.Kind == KindAcquire {
			if o.Limit < 1 || o.Limit > MaxLimit {
				return fmt.Errorf("%s.limit: %d is outside 1..%d", at, o.Limit, MaxLimit)
			}
			if slots += o.Limit; slots > MaxSlots {
				return fmt.Errorf("%s.limit: the call's acquires name %d slots, at most %d", at, slots, MaxSlots)
			}
		}
		if o.Kind == KindRenew || o.Kind == KindRelease {
			if o.Token == 0 {
				return fmt.Errorf("%s.token: the permit's token (a whole number above 0) is required", at)
			}
			if o.Slot < 0 || o.Slot >= MaxLimit {
				return fmt.Errorf("%s.slot: %d is outside 0..%d", at, o.Slot, MaxLimit-1)
			}
		}
	}
	return nil
}

func checkName(s string) error { return contract.LockName.Check("name", s) }

func checkOwner(s string) error {
	if s == "" {
		return errors.New("an owner of 1 to 256 bytes is required")
	}
	return contract.LockOwner.Check("owner", s)
}

package locks

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
)

// Appliers returns the locks family's applier by op kind, to pass to
// raftlog.Host.StartShard beside kvstore's, whose rows it writes. Every
// node of a shard must run both.
func Appliers() map[raftlog.OpKind]raftlog.Applier { return applier.Appliers(OpLocks) }

// applier applies one call's operations in order, each on its own lock,
// through KV calls of the same entry (raftlog.Txn.Apply): a permit is a
// KV row and nothing else. A call that does not decode is refused.
var applier = family.Applier[*state]{Decode: func(data []byte) (family.Op[*state], error) { return decodeCall(data) }, Growing: grows,
	State: func(e family.Entry) *state { return &state{tx: e.Tx, at: e.At} }}

// Apply answers the call's operations as a JSON array of Answer. A KV
// call of its own that fails is a bug and refuses the entry.
func (c *Call) Apply(s *state) ([]byte, error) {
	s.tenant = c.Tenant
	out := make([]Answer, len(c.Ops))
	for i, o := range c.Ops {
		a, err := s.apply(&o)
		if err != nil {
			return nil, err
		}
		a.Index, a.Op, a.Name = i, KindNames[o.Kind], o.Name
		out[i] = a
	}
	return json.Marshal(out)
}

// state is one call's access to the KV rows of its tenant (the call's).
type state struct {
	tx     *raftlog.Txn
	at     raftlog.ApplyInfo
	tenant string
}

func (s *state) apply(o *Op) (Answer, error) {
	switch o.Kind {
	case KindAcquire:
		return s.acquire(o)
	case KindRenew:
		return s.renew(o)
	case KindRelease:
		return s.release(o)
	}
	hs, err := s.holders(o.Name)
	return Answer{Held: ptr(len(hs) > 0), Holders: &hs}, err
}

// acquire answers the permit the owner holds already (already), else takes
// the lowest free slot below the limit, else answers held.
func (s *state) acquire(o *Op) (Answer, error) {
	hs, err := s.holders(o.Name)
	if err != nil {
		return Answer{}, err
	}
	taken := make([]bool, o.Limit)
	for _, h := range hs {
		if h.Owner == o.Owner {
			return granted(o.Name, h.Slot, h.Token, o.Owner, true), nil
		}
		if h.Slot < o.Limit {
			taken[h.Slot] = true
		}
	}
	slot := slices.Index(taken, false)
	if slot < 0 {
		return Answer{Acquired: ptr(false), Reason: "held", Holders: &hs}, nil
	}
	value, err := json.Marshal(rowValue{Owner: o.Owner, Since: contract.FormatKVStamp(s.at.Stamp)})
	if err != nil {
		return Answer{}, err
	}
	ttl := o.TTLSeconds
	r, err := s.kv(kvstore.Op{Op: kvstore.OpPutIfAbsent, NS: NS, Key: key(o.Name, slot), Value: value, TTLSeconds: &ttl})
	if err != nil {
		return Answer{}, err
	}
	if !r.Applied { // holders saw the slot free in this same entry: cannot happen
		return Answer{Acquired: ptr(false), Reason: "contended", Holders: &hs}, nil
	}
	return granted(o.Name, slot, r.Version, o.Owner, false), nil
}

// renew rewrites the permit's row at its token, with a new lifetime: the
// row's new version is the new token.
func (s *state) renew(o *Op) (Answer, error) {
	k := key(o.Name, o.Slot)
	g, err := s.kv(kvstore.Op{Op: kvstore.OpGet, NS: NS, Key: k})
	if err != nil {
		return Answer{}, err
	}
	v := parseValue(g.Value)
	if g.Found && g.Version == o.Token && (o.Owner == "" || o.Owner == v.Owner) {
		ttl, expect := o.TTLSeconds, int64(o.Token)
		r, err := s.kv(kvstore.Op{Op: kvstore.OpPut, NS: NS, Key: k, Value: g.Value, TTLSeconds: &ttl, Expect: &expect})
		if err != nil {
			return Answer{}, err
		}
		if r.Applied {
			a := granted(o.Name, o.Slot, r.Version, v.Owner, false)
			a.Acquired, a.Renewed = nil, ptr(true)
			return a, nil
		}
	}
	hs, err := s.holders(o.Name)
	return Answer{Renewed: ptr(false), Reason: "lost", Holders: &hs}, err
}

// release deletes the permit's row at its token.
func (s *state) release(o *Op) (Answer, error) {
	expect := int64(o.Token)
	r, err := s.kv(kvstore.Op{Op: kvstore.OpDelete, NS: NS, Key: key(o.Name, o.Slot), Expect: &expect})
	if err != nil {
		return Answer{}, err
	}
	if !r.Applied {
		return Answer{Released: ptr(false), Reason: "lost", Slot: &o.Slot}, nil
	}
	return Answer{Released: ptr(true), Slot: &o.Slot}, nil
}

// holders lists the live permits of a lock in slot order: its rows
// "<name>#<slot>", pages of a getPrefix of the KV.
func (s *state) holders(name string) ([]Holder, error) {
	hs := []Holder{}
	after := ""
	for {
		r, err := s.kv(kvstore.Op{Op: kvstore.OpGetPrefix, NS: NS, Prefix: name + "#", After: after, Limit: kvstore.MaxPageLimit})
		if err != nil {
			return nil, err
		}
		for _, row := range r.Rows {
			slot, err := strconv.Atoi(strings.TrimPrefix(row.Key, name+"#"))
			if err != nil || slot < 0 || strconv.Itoa(slot) != row.Key[len(name)+1:] {
				continue // a row of this namespace no lock wrote
			}
			v := parseValue(row.Value)
			hs = append(hs, Holder{Slot: slot, Owner: v.Owner, Token: row.Version, Since: v.Since,
				RenewedAt: contract.FormatKVStamp(row.UpdatedAt), ExpiresAt: contract.FormatKVStamp(row.ExpiresAt)})
		}
		if !r.Truncated || r.NextAfter == "" {
			break
		}
		after = r.NextAfter
	}
	slices.SortFunc(hs, func(a, b Holder) int { return a.Slot - b.Slot })
	return hs, nil
}

// kv runs one KV op of the tenant in this entry and returns its result.
// The op is the family's own, so a refusal is a bug: the entry is refused.
func (s *state) kv(op kvstore.Op) (kvstore.Result, error) {
	enc, err := kvstore.Encode(s.tenant, []kvstore.Op{op})
	if err != nil {
		return kvstore.Result{}, fmt.Errorf("locks: %s %q: %w", op.Op, op.Key+op.Prefix, err)
	}
	answer, applied, err := s.tx.Apply(s.at, enc)
	if err != nil {
		return kvstore.Result{}, err
	}
	if why, ok := raftlog.Rejected(answer); ok || !applied {
		return kvstore.Result{}, errors.New("locks: the KV refused " + op.Op + ": " + why)
	}
	a, err := kvstore.DecodeAnswer(answer)
	if err != nil || len(a.Results) != 1 {
		return kvstore.Result{}, fmt.Errorf("locks: the KV answered %v: %w", a, err)
	}
	return a.Results[0], nil
}

// key is the KV key of a lock's slot.
func key(name string, slot int) string { return name + "#" + strconv.Itoa(slot) }

// rowValue is a permit's row value: who holds it and since when (the
// stamp of the acquire; a renew keeps it).
type rowValue struct {
	Owner string `json:"owner"`
	Since string `json:"since"`
}

func parseValue(b []byte) rowValue {
	var v rowValue
	_ = json.Unmarshal(b, &v) // a row of another shape has no owner
	return v
}

func granted(name string, slot int, token uint64, owner string, already bool) Answer {
	return Answer{Acquired: ptr(true), Already: already, Slot: &slot, Token: token, Owner: owner,
		Guard: &Guard{Op: kvstore.OpCheck, NS: NS, Key: key(name, slot), Expect: token, Required: true}}
}

func ptr[T any](v T) *T { return &v }

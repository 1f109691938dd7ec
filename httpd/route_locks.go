package httpd

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/queen-mq/queen-go/contract"
)

// MaxLockOps is the most operations of one locks call.
const MaxLockOps = 64

// locks is POST /api/v1/locks: {"operations":[…]} → 200 {"results":[…]},
// one result per operation in order. A lock that is held, lost or free is
// an answer, never an error status: the status says how the call went.
func (s *server) locks() http.Handler {
	return route(http.StatusOK, bodyOf(s, decodeLockOps), func(r *http.Request, ops []LockOp) (rawJSON, error) {
		got, err := s.l.Locks(r.Context(), tenantOf(r), ops)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		b.WriteString(`{"results":[`)
		for i, a := range got {
			if i > 0 {
				b.WriteByte(',')
			}
			raw, err := a.MarshalJSON()
			if err != nil {
				return nil, err
			}
			b.Write(raw)
		}
		b.WriteString("]}\n")
		return b.Bytes(), nil
	})
}

// decodeLockOps checks a locks body: an object whose operations is an
// array of at most MaxLockOps objects, each with a known op, a name, and
// the fields of its op in their ranges. Refusals are 400 bad_request
// naming the field (operations[i].<field>).
func decodeLockOps(body []byte) ([]LockOp, error) {
	o, err := asObject(body, "the body")
	if err != nil {
		return nil, err
	}
	if _, ok := o["operations"]; !ok {
		return nil, badRequest("operations is required: {\"operations\":[…]}")
	}
	list, err := arrayAtMost(o["operations"], "operations", MaxLockOps, "operations: %d operations, at most %d in one call")
	if err != nil {
		return nil, err
	}
	return decodeEach(list, "operations", decodeLockOp)
}

func decodeLockOp(raw json.RawMessage, at string) (LockOp, error) {
	var op LockOp
	o, err := asObject(raw, at)
	if err != nil {
		return op, err
	}
	var ok bool
	if op.Op, ok, err = o.str("op", at+".op"); err != nil {
		return op, err
	}
	switch op.Op {
	case "acquire", "renew", "release", "get":
	default:
		if !ok {
			return op, badRequest("%s.op is required: acquire, renew, release or get", at)
		}
		return op, badRequest("%s.op %q is not a lock operation: acquire, renew, release or get", at, op.Op)
	}
	if op.Name, err = o.required("name", at, contract.LockName); err != nil {
		return op, err
	}
	if op.Owner, err = o.name("owner", at+".owner", contract.LockOwner); err != nil {
		return op, err
	}
	lim, _, err := o.integer("limit", at+".limit", contract.LockLimit, 1)
	if err != nil {
		return op, err
	}
	op.Limit = int(lim)
	if op.Op == "acquire" || op.Op == "renew" {
		if forever, _, _ := o.boolean("forever", at+".forever"); forever {
			return op, badRequest("%s.forever: a lock has no forever; give ttlSeconds and renew", at)
		}
		var given bool
		if op.TTLSeconds, given, err = o.integer("ttlSeconds", at+".ttlSeconds", contract.LockTTLSeconds, 0); err != nil {
			return op, err
		} else if !given {
			return op, badRequest("%s.ttlSeconds is required: a permit's lifetime in whole seconds", at)
		}
	}
	if op.Op == "renew" || op.Op == "release" {
		var given bool
		if op.Token, given, err = o.integer("token", at+".token", contract.LockToken, 0); err != nil {
			return op, err
		} else if !given {
			return op, badRequest("%s.token is required: the token of the permit's acquire or last renew", at)
		}
		slot, _, err := o.integer("slot", at+".slot", contract.LockSlot, 0)
		if err != nil {
			return op, err
		}
		op.Slot = int(slot)
	}
	return op, nil
}

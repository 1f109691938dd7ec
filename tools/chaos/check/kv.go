package check

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// KVOp is one KV operation a client ran, with its call and return times
// (monotonic ns from one clock). Kind "put" (Value written) or "get" (Value
// read; Found false: absent). Unknown: the client got no answer (timeout,
// 503): the op may or may not have taken effect, at any time after Call.
// Refused: the broker answered a definite refusal (507 storage_full): the
// op did not happen.
type KVOp struct {
	Client       int
	Kind         string
	Key          string
	Value        string
	Found        bool
	Unknown      bool
	Refused      bool
	Call, Return int64
}

// CheckKVTimeout bounds the check of one key by CheckKV; past it the key
// is reported "undecided". Checking linearizability is NP-hard: a key with
// many concurrent puts of unknown outcome can take long. A caller may set
// it before calling CheckKV; 0 sets no bound.
var CheckKVTimeout = 10 * time.Second

// CheckKV checks the history is linearizable per key as a register
// (initially absent), with porcupine. An Unknown op is a put that may have
// happened (its return time is taken as infinity) or a get that tells
// nothing (dropped); a Refused op did not happen (dropped: a get that
// reads a refused put's value then has no linearization). Returns one
// "nonlinearizable" anomaly per key whose history no register could give,
// "undecided" per key whose check ran out of CheckKVTimeout, and
// "invalid" per op of another kind than put or get or whose Return is
// before its Call (it is left out of the check).
// Keys are checked one at a time, in name order.
func CheckKV(ops []KVOp) []Anomaly {
	var out []Anomaly
	byKey := map[string][]porcupine.Operation{}
	unknown := map[string]int{}
	for _, op := range ops {
		switch {
		case op.Kind != "put" && op.Kind != "get":
			out = append(out, Anomaly{KindInvalid, fmt.Sprintf("op of kind %q: %s", op.Kind, describeOp(op))})
			continue
		case !op.Unknown && op.Return < op.Call:
			out = append(out, Anomaly{KindInvalid, "op returns before its call: " + describeOp(op)})
			continue
		case op.Unknown && op.Kind == "get", op.Refused && !op.Unknown:
			continue // tells nothing, or did not happen
		}
		ret := op.Return
		if op.Unknown {
			ret = math.MaxInt64
			unknown[op.Key]++
		}
		byKey[op.Key] = append(byKey[op.Key], porcupine.Operation{
			ClientId: op.Client,
			Input:    registerInput{put: op.Kind == "put", value: op.Value},
			Output:   register{found: op.Found, value: op.Value},
			Call:     op.Call,
			Return:   ret,
			Metadata: op,
		})
	}
	for _, key := range sortedKeys(byKey) {
		h := byKey[key]
		what := fmt.Sprintf("key %q: %d ops (%d puts of unknown outcome)", key, len(h), unknown[key])
		switch porcupine.CheckOperationsTimeout(registerModel, h, CheckKVTimeout) {
		case porcupine.Illegal:
			out = append(out, Anomaly{KindNonlinearizable, what + " have no linearization as a register" + listOps(h)})
		case porcupine.Unknown:
			out = append(out, Anomaly{KindUndecided, fmt.Sprintf("%s: no verdict within %v", what, CheckKVTimeout)})
		}
	}
	return out
}

// register is the state of one key (and what a get read).
type register struct {
	found bool
	value string
}

// registerInput is a put of value, or a get.
type registerInput struct {
	put   bool
	value string
}

// registerModel is one key as a register, initially absent: a put sets
// it, a get must read what it holds.
var registerModel = porcupine.Model{
	Init: func() any { return register{} },
	Step: func(state, input, output any) (bool, any) {
		s, in := state.(register), input.(registerInput)
		if in.put {
			return true, register{found: true, value: in.value}
		}
		got := output.(register)
		return got == s || (!s.found && !got.found), s
	},
}

// maxListedOps is how many ops of a nonlinearizable key its Anomaly lists.
const maxListedOps = 12

// listOps renders a short history, for the reader to see why; "" for a
// long one.
func listOps(h []porcupine.Operation) string {
	if len(h) > maxListedOps {
		return ""
	}
	parts := make([]string, len(h))
	for i, o := range h {
		parts[i] = describeOp(o.Metadata.(KVOp))
	}
	return ": " + strings.Join(parts, "; ")
}

// describeOp renders an op as `c1 put "a" [10,20]`, `c2 get absent [30,?]`.
func describeOp(op KVOp) string {
	ret := fmt.Sprint(op.Return)
	if op.Unknown {
		ret = "?"
	}
	v := fmt.Sprintf("%q", op.Value)
	if op.Kind == "get" && !op.Found {
		v = "absent"
	}
	return fmt.Sprintf("c%d %s %s [%d,%s]", op.Client, op.Kind, v, op.Call, ret)
}

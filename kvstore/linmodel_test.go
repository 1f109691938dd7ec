package kvstore_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/queen-mq/queen-go/kvstore"
)

// The model of one key for porcupine. Values are integers (puts write
// unique ones, incr adds 1), and the model checks versions too: a write's
// version is above every version the key had, and a read sees the
// version of the write it sees.

type lin struct {
	op    string // put, putIfAbsent, incr, delete, get
	key   string
	value int64 // put, putIfAbsent
}

type linOut struct {
	unknown bool // the call failed with an unknown outcome: it may have applied
	applied bool // writes
	found   bool // get; putIfAbsent that lost: a row was there
	value   int64
	version uint64
}

// linState is one key. When exact, version is the row's; otherwise it is
// only a bound below the row's (a write whose answer was lost) or, when
// the row is absent, below any version a write gives next.
type linState struct {
	exists  bool
	value   int64
	version uint64
	exact   bool
}

func linStep(st, in, out any) (bool, any) {
	s, i, o := st.(linState), in.(lin), out.(linOut)
	if o.unknown {
		// Took effect here, with a version we never saw; the checker places
		// an op that never took effect after every other, where it is moot.
		switch i.op {
		case "put":
			return true, linState{exists: true, value: i.value, version: s.version}
		case "putIfAbsent":
			if s.exists {
				return true, s
			}
			return true, linState{exists: true, value: i.value, version: s.version}
		case "incr":
			v := int64(1)
			if s.exists {
				v = s.value + 1
			}
			return true, linState{exists: true, value: v, version: s.version}
		case "delete":
			return true, linState{version: s.version}
		}
		return false, s
	}
	// sees reports whether version v can be the current row's.
	sees := func(v uint64) bool { return (s.exact && v == s.version) || (!s.exact && v > s.version) }
	// wrote reports whether v can be a new version; the state after it.
	wrote := func(v uint64, value int64) (bool, any) {
		return v > s.version, linState{exists: true, value: value, version: v, exact: true}
	}
	switch i.op {
	case "get":
		if !s.exists {
			return !o.found, s
		}
		return o.found && o.value == s.value && sees(o.version), linState{exists: true, value: s.value, version: o.version, exact: true}
	case "put":
		if !o.applied {
			return false, s
		}
		return wrote(o.version, i.value)
	case "putIfAbsent":
		if s.exists {
			return !o.applied && o.found && o.value == s.value && sees(o.version), linState{exists: true, value: s.value, version: o.version, exact: true}
		}
		if !o.applied {
			return false, s
		}
		return wrote(o.version, i.value)
	case "incr":
		want := int64(1)
		if s.exists {
			want = s.value + 1
		}
		if !o.applied || o.value != want {
			return false, s
		}
		return wrote(o.version, want)
	case "delete":
		if !s.exists {
			return !o.applied, s
		}
		return o.applied, linState{version: s.version}
	}
	return false, s
}

var linModel = porcupine.Model{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		return byKey(h, func(op porcupine.Operation) string { return op.Input.(lin).key })
	},
	PartitionEvent: func(h []porcupine.Event) [][]porcupine.Event {
		key := map[int]string{} // a call's key, for its return
		return byKey(h, func(e porcupine.Event) string {
			if e.Kind == porcupine.CallEvent {
				key[e.Id] = e.Value.(lin).key
			}
			return key[e.Id]
		})
	},
	Init: func() any { return linState{} },
	Step: linStep,
	DescribeOperation: func(in, out any) string {
		i, o := in.(lin), out.(linOut)
		if o.unknown {
			return fmt.Sprintf("%s(%s, %d) -> ?", i.op, i.key, i.value)
		}
		return fmt.Sprintf("%s(%s, %d) -> applied %v found %v value %d version %d", i.op, i.key, i.value, o.applied, o.found, o.value, o.version)
	},
	DescribeState: func(st any) string { return fmt.Sprintf("%+v", st.(linState)) },
}

// linOp turns an input into the KV op that runs it.
func linOp(i lin) kvstore.Op {
	v := json.RawMessage(strconv.FormatInt(i.value, 10))
	switch i.op {
	case "put":
		return kvstore.Op{Op: kvstore.OpPut, NS: "lin", Key: i.key, Value: v, Forever: true}
	case "putIfAbsent":
		return kvstore.Op{Op: kvstore.OpPutIfAbsent, NS: "lin", Key: i.key, Value: v, Forever: true}
	case "incr":
		return kvstore.Op{Op: kvstore.OpIncr, NS: "lin", Key: i.key, Delta: "1", Forever: true}
	case "delete":
		return kvstore.Op{Op: kvstore.OpDelete, NS: "lin", Key: i.key}
	}
	return kvstore.Op{Op: kvstore.OpGet, NS: "lin", Key: i.key}
}

func linResult(t *testing.T, r kvstore.Result) linOut {
	o := linOut{applied: r.Applied, found: r.Found || (r.Op == kvstore.OpPutIfAbsent && r.Reason == kvstore.ReasonExists), version: r.Version}
	if r.Value != nil {
		v, err := strconv.ParseInt(string(r.Value), 10, 64)
		if err != nil {
			t.Errorf("%s answered the value %s", r.Op, r.Value)
		}
		o.value = v
	}
	return o
}

// byKey splits a history by key, each part in history order, the parts in
// the order their keys first appear. key is called once per element, in
// order.
func byKey[T any](h []T, key func(T) string) [][]T {
	by := map[string][]T{}
	var keys []string
	for _, x := range h {
		k := key(x)
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], x)
	}
	out := make([][]T, 0, len(keys))
	for _, k := range keys {
		out = append(out, by[k])
	}
	return out
}

package check

import (
	"strings"
	"testing"
)

// TestCheckLogRefused: a push answered 507 storage_full did not happen:
// its record in a log is an anomaly, on each node that serves it; a
// refused push not in the logs is none, and neither is a refused attempt
// whose TxnID was also pushed without an answer or acked.
func TestCheckLogRefused(t *testing.T) {
	refused := func(part, txn, payload string) Push {
		return Push{Queue: "q", Partition: part, TxnID: txn, Payload: []byte(payload), Refused: true}
	}
	tests := []struct {
		name   string
		mutate func(pushes []Push, logs map[string][]Record) []Push
		want   []string
		detail string
	}{
		{name: "refused and absent", mutate: func(p []Push, _ map[string][]Record) []Push {
			return append(p, refused("p0", "r1", "r"), refused("p1", "r2", "s"))
		}},
		{name: "refused and stored", want: []string{KindRefused}, detail: `p0 offset 4: txn "r1", whose every push was refused (507 storage_full) (nodes n1, n2, n3)`,
			mutate: func(p []Push, logs map[string][]Record) []Push {
				onNodes(logs, add(rec("p0", "r1", 4, "r")))
				return append(p, refused("p0", "r1", "r"))
			}},
		{name: "refused and stored on one node", want: []string{KindRefused}, detail: "(node n2)", mutate: func(p []Push, logs map[string][]Record) []Push {
			onNodes(logs, add(rec("p1", "r2", 2, "s")), "n2")
			return append(p, refused("p1", "r2", "s"))
		}},
		{name: "refused twice and stored", want: []string{KindRefused}, mutate: func(p []Push, logs map[string][]Record) []Push {
			onNodes(logs, add(rec("p0", "r1", 4, "r")))
			return append(p, refused("p0", "r1", "r"), refused("p0", "r1", "r"))
		}},
		{name: "refused after an attempt without an answer", mutate: func(p []Push, logs map[string][]Record) []Push {
			onNodes(logs, add(rec("p0", "r1", 4, "r")))
			return append(p, Push{Queue: "q", Partition: "p0", TxnID: "r1", Payload: []byte("r")}, refused("p0", "r1", "r"))
		}},
		{name: "refused in another partition than stored", mutate: func(p []Push, _ map[string][]Record) []Push {
			return append(p, refused("p1", "t1", "a")) // t1 is acked in p0
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pushes, logs := goodLog()
			got := CheckLog(tt.mutate(pushes, logs), logs)
			assertKinds(t, got, tt.want)
			if tt.detail != "" && len(got) > 0 && !strings.Contains(got[0].Detail, tt.detail) {
				t.Errorf("detail %q lacks %q", got[0].Detail, tt.detail)
			}
		})
	}
}

// TestCheckKVRefused: a refused op did not happen: a get that reads a
// refused put's value has no linearization, and a refused put nobody read
// changes nothing.
func TestCheckKVRefused(t *testing.T) {
	refusedPut := func(c int, key, v string, call, ret int64) KVOp {
		op := put(c, key, v, call, ret)
		op.Refused = true
		return op
	}
	assertKinds(t, CheckKV([]KVOp{
		put(0, "k", "a", 0, 10),
		refusedPut(1, "k", "b", 20, 30),
		get(2, "k", "a", 40, 50),
	}), nil)
	got := CheckKV([]KVOp{
		put(0, "k", "a", 0, 10),
		refusedPut(1, "k", "b", 20, 30),
		get(2, "k", "b", 40, 50),
	})
	assertKinds(t, got, []string{KindNonlinearizable})
	assertKinds(t, CheckKV([]KVOp{refusedPut(0, "k", "a", 0, 10), getAbsent(1, "k", 20, 30)}), nil)
}

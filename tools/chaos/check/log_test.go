package check

import (
	"slices"
	"strings"
	"testing"
)

// goodLog is a history CheckLog passes: queue q, partitions p0 and p1 on
// nodes n1..n3. In p0, t2 went unanswered yet is stored, t4 went
// unanswered and is not, and t3 was retried and answered duplicate.
func goodLog() ([]Push, map[string][]Record) {
	pushes := []Push{
		{Queue: "q", Partition: "p0", TxnID: "t1", Payload: []byte("a"), Acked: true, Offset: 0},
		{Queue: "q", Partition: "p0", TxnID: "t2", Payload: []byte("b")},
		{Queue: "q", Partition: "p0", TxnID: "t3", Payload: []byte("c"), Acked: true, Offset: 2},
		{Queue: "q", Partition: "p0", TxnID: "t3", Payload: []byte("c"), Acked: true, Offset: 2, Duplicate: true},
		{Queue: "q", Partition: "p0", TxnID: "t4", Payload: []byte("d")},
		{Queue: "q", Partition: "p0", TxnID: "t5", Payload: []byte("e"), Acked: true, Offset: 3},
		{Queue: "q", Partition: "p1", TxnID: "u1", Payload: []byte("x"), Acked: true, Offset: 0},
		{Queue: "q", Partition: "p1", TxnID: "u2", Payload: []byte("y"), Acked: true, Offset: 1},
	}
	logs := map[string][]Record{}
	for _, n := range []string{"n1", "n2", "n3"} {
		logs[n] = []Record{
			rec("p0", "t1", 0, "a"), rec("p0", "t2", 1, "b"), rec("p0", "t3", 2, "c"), rec("p0", "t5", 3, "e"),
			rec("p1", "u1", 0, "x"), rec("p1", "u2", 1, "y"),
		}
	}
	return pushes, logs
}

func rec(part, txn string, off int64, payload string) Record {
	return Record{Queue: "q", Partition: part, TxnID: txn, Offset: off, Payload: []byte(payload)}
}

// onNodes applies f to the log of each named node; no names: every node.
func onNodes(logs map[string][]Record, f func([]Record) []Record, nodes ...string) {
	if len(nodes) == 0 {
		nodes = sortedKeys(logs)
	}
	for _, n := range nodes {
		logs[n] = f(logs[n])
	}
}

func drop(part string, off int64) func([]Record) []Record {
	return func(rs []Record) []Record {
		return slices.DeleteFunc(rs, func(r Record) bool { return r.Partition == part && r.Offset == off })
	}
}

func add(r Record) func([]Record) []Record {
	return func(rs []Record) []Record { return append(rs, r) }
}

func edit(part string, off int64, f func(*Record)) func([]Record) []Record {
	return func(rs []Record) []Record {
		for i := range rs {
			if rs[i].Partition == part && rs[i].Offset == off {
				f(&rs[i])
			}
		}
		return rs
	}
}

func TestCheckLog(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(pushes []Push, logs map[string][]Record) []Push
		want   []string // kinds, in any order
		detail string   // in the first anomaly's Detail
	}{
		{name: "good", mutate: func(p []Push, _ map[string][]Record) []Push { return p }},
		{name: "unacked pushes only", want: nil, mutate: func(p []Push, logs map[string][]Record) []Push {
			for k := range logs {
				delete(logs, k)
			}
			return slices.DeleteFunc(p, func(p Push) bool { return p.Acked })
		}},
		{name: "acked push in no log", want: []string{KindLost}, detail: "in no log", mutate: func(p []Push, logs map[string][]Record) []Push {
			onNodes(logs, drop("p0", 3))
			return p
		}},
		{name: "acked push missing on a node", want: []string{KindLost}, detail: `"t5", acked at offset 3, is missing (node n2)`,
			mutate: func(p []Push, logs map[string][]Record) []Push {
				onNodes(logs, drop("p0", 3), "n2")
				return p
			}},
		{name: "acked push missing mid-log on a node", want: []string{KindLost, KindGap}, mutate: func(p []Push, logs map[string][]Record) []Push {
			onNodes(logs, drop("p0", 2), "n2")
			return p
		}},
		{name: "no node", want: []string{KindLost, KindLost, KindLost, KindLost, KindLost}, mutate: func(p []Push, logs map[string][]Record) []Push {
			for k := range logs {
				delete(logs, k)
			}
			return p
		}},
		{name: "answered another offset", want: []string{KindMoved}, detail: "(nodes n1, n2, n3)", mutate: func(p []Push, _ map[string][]Record) []Push {
			p[5].Offset = 4
			return p
		}},
		{name: "duplicate answered another offset", want: []string{KindMoved}, mutate: func(p []Push, _ map[string][]Record) []Push {
			p[3].Offset = 1
			return p
		}},
		{name: "two acked records swapped", want: []string{KindMoved, KindMoved}, mutate: func(p []Push, logs map[string][]Record) []Push {
			onNodes(logs, edit("p0", 2, func(r *Record) { r.TxnID, r.Payload = "t5", []byte("e") }))
			onNodes(logs, edit("p0", 3, func(r *Record) { r.TxnID, r.Payload = "t3", []byte("c") }))
			return p
		}},
		{name: "acked push stored twice", want: []string{KindDuplicate}, detail: `txn "t3" at offsets [2 4]`, mutate: func(p []Push, logs map[string][]Record) []Push {
			onNodes(logs, add(rec("p0", "t3", 4, "c")))
			return p
		}},
		{name: "unacked push stored twice", want: []string{KindDuplicate}, mutate: func(p []Push, logs map[string][]Record) []Push {
			onNodes(logs, add(rec("p0", "t2", 4, "b")))
			return p
		}},
		{name: "gap", want: []string{KindGap}, detail: "offset 1 missing", mutate: func(p []Push, logs map[string][]Record) []Push {
			onNodes(logs, drop("p0", 1))
			return p
		}},
		{name: "nodes serve different records", want: []string{KindDiverged}, detail: `offset 1: txn "t2" (1 bytes) on n1, n2; txn "t4" (1 bytes) on n3`,
			mutate: func(p []Push, logs map[string][]Record) []Push {
				onNodes(logs, edit("p0", 1, func(r *Record) { r.TxnID, r.Payload = "t4", []byte("d") }), "n3")
				return p
			}},
		{name: "a node serves two records at an offset", want: []string{KindDiverged}, detail: "served twice", mutate: func(p []Push, logs map[string][]Record) []Push {
			onNodes(logs, add(rec("p0", "t4", 1, "d")), "n1")
			return p
		}},
		{name: "a node serves one record twice", mutate: func(p []Push, logs map[string][]Record) []Push {
			onNodes(logs, add(rec("p0", "t2", 1, "b")), "n1")
			return p
		}},
		{name: "phantom", want: []string{KindPhantom}, mutate: func(p []Push, logs map[string][]Record) []Push {
			onNodes(logs, add(rec("p0", "ghost", 4, "g")))
			return p
		}},
		{name: "phantom: pushed to another partition", want: []string{KindPhantom}, mutate: func(p []Push, logs map[string][]Record) []Push {
			onNodes(logs, add(rec("p1", "t1", 2, "a")))
			return p
		}},
		{name: "corrupt", want: []string{KindCorrupt}, mutate: func(p []Push, logs map[string][]Record) []Push {
			onNodes(logs, edit("p0", 0, func(r *Record) { r.Payload = []byte("A") }))
			return p
		}},
		{name: "corrupt on one node", want: []string{KindCorrupt, KindDiverged}, mutate: func(p []Push, logs map[string][]Record) []Push {
			onNodes(logs, edit("p1", 1, func(r *Record) { r.Payload = nil }), "n1")
			return p
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pushes, logs := goodLog()
			pushes = tt.mutate(pushes, logs)
			got := CheckLog(pushes, logs)
			assertKinds(t, got, tt.want)
			if tt.detail != "" && len(got) > 0 && !strings.Contains(got[0].Detail, tt.detail) {
				t.Errorf("detail %q lacks %q", got[0].Detail, tt.detail)
			}
		})
	}
}

// assertKinds fails t unless got has exactly the kinds want, in any order.
func assertKinds(t *testing.T, got []Anomaly, want []string) {
	t.Helper()
	var kinds []string
	for _, a := range got {
		kinds = append(kinds, a.Kind)
	}
	slices.Sort(kinds)
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(kinds, want) {
		t.Errorf("kinds %v, want %v; anomalies:", kinds, want)
		for _, a := range got {
			t.Logf("  %s", a)
		}
	}
}

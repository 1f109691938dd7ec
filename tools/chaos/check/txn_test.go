package check

import "testing"

// goodTxns is a history CheckTxn passes on nodes n1..n3: t1 committed,
// t2 not answered and applied, t3 not answered and not applied.
func goodTxns() ([]Txn, map[string]map[string]int) {
	txns := []Txn{
		{ID: "t1", Effects: []string{"a/t1", "b/t1", "kv/t1"}, Committed: true},
		{ID: "t2", Effects: []string{"a/t2", "b/t2", "kv/t2"}},
		{ID: "t3", Effects: []string{"a/t3", "b/t3", "kv/t3"}},
	}
	state := map[string]map[string]int{}
	for _, n := range []string{"n1", "n2", "n3"} {
		state[n] = map[string]int{"a/t1": 1, "b/t1": 1, "kv/t1": 1, "a/t2": 1, "b/t2": 1, "kv/t2": 1}
	}
	return txns, state
}

func TestCheckTxn(t *testing.T) {
	t.Run("good", func(t *testing.T) {
		txns, state := goodTxns()
		assertKinds(t, CheckTxn(txns, state), nil)
	})
	for _, tt := range []struct {
		kind  string
		spoil func(txns []Txn, state map[string]map[string]int)
	}{
		{KindPartial, func(_ []Txn, s map[string]map[string]int) { delete(s["n2"], "kv/t2") }},
		{KindLost, func(_ []Txn, s map[string]map[string]int) {
			for _, e := range []string{"a/t1", "b/t1", "kv/t1"} {
				delete(s["n1"], e)
				delete(s["n3"], e)
			}
		}},
		{KindDuplicate, func(_ []Txn, s map[string]map[string]int) { s["n1"]["a/t1"], s["n2"]["a/t1"] = 2, 2 }},
		{KindPhantom, func(_ []Txn, s map[string]map[string]int) { s["n3"]["kv/t9"] = 1 }},
		{KindDiverged, func(_ []Txn, s map[string]map[string]int) {
			for _, e := range []string{"a/t3", "b/t3", "kv/t3"} {
				s["n1"][e] = 1
			}
		}},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			txns, state := goodTxns()
			tt.spoil(txns, state)
			got := CheckTxn(txns, state)
			assertKinds(t, got, []string{tt.kind})
			for _, a := range got {
				t.Log(a)
			}
		})
	}
}

package check

import (
	"fmt"
	"testing"
)

func TestSummary(t *testing.T) {
	tests := []struct {
		in   []Anomaly
		want string
	}{
		{nil, "no anomalies"},
		{[]Anomaly{{KindGap, "x"}}, "1 anomaly: gap 1"},
		{[]Anomaly{{KindLost, "x"}, {KindGap, "y"}, {KindLost, "z"}}, "3 anomalies: gap 1, lost 2"},
	}
	for _, tt := range tests {
		if got := Summary(tt.in); got != tt.want {
			t.Errorf("Summary(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func ExampleCheckLog() {
	pushes := []Push{
		{Queue: "q", Partition: "p", TxnID: "t1", Payload: []byte("a"), Acked: true, Offset: 0},
		{Queue: "q", Partition: "p", TxnID: "t2", Payload: []byte("b"), Acked: true, Offset: 1},
	}
	full := []Record{
		{Queue: "q", Partition: "p", TxnID: "t1", Offset: 0, Payload: []byte("a")},
		{Queue: "q", Partition: "p", TxnID: "t2", Offset: 1, Payload: []byte("b")},
	}
	as := CheckLog(pushes, map[string][]Record{"n1": full, "n2": full[:1]})
	fmt.Println(Summary(as))
	for _, a := range as {
		fmt.Println(a)
	}
	// Output:
	// 1 anomaly: lost 1
	// lost: q/p: txn "t2", acked at offset 1, is missing (node n2)
}

func ExampleCheckKV() {
	as := CheckKV([]KVOp{
		{Client: 0, Kind: "put", Key: "k", Value: "a", Call: 0, Return: 10},
		{Client: 1, Kind: "get", Key: "k", Call: 20, Return: 30}, // absent: stale
	})
	fmt.Println(as[0])
	// Output:
	// nonlinearizable: key "k": 2 ops (0 puts of unknown outcome) have no linearization as a register: c0 put "a" [0,10]; c1 get absent [20,30]
}

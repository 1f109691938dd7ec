package consume_test

import (
	"testing"

	"github.com/queen-mq/queen-go/queen/internal/consume"
)

// BenchmarkAckBatch: one ack call of 3,000 messages of one partition,
// fenced, every one completed; an op's apply reads and writes the group's
// state once, however many items name it.
func BenchmarkAckBatch(b *testing.B) {
	e := start(b)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		e.push("q", "p", i*3000, 3000)
		res := e.pop(consume.PopRequest{Queue: "q", Batch: 3000})
		b.StartTimer()
		for _, a := range e.ack(res, "", consume.StatusCompleted, true) {
			if !a.OK {
				b.Fatalf("ack: %+v", a)
			}
		}
	}
}

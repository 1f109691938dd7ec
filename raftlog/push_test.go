package raftlog_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// TestConcurrentPushes pushes from many goroutines, through every node, and
// checks the queue log's promise: per partition, offsets from 0 with no gap
// and no duplicate, and every node reads back exactly the pushed bytes.
func TestConcurrentPushes(t *testing.T) {
	for _, nodes := range []int{1, 3} {
		t.Run(fmt.Sprintf("nodes=%d", nodes), func(t *testing.T) { testConcurrentPushes(t, nodes) })
	}
}

// pushed is what the test remembers of one pushed item.
type pushed struct {
	queue, partition string
	payload          []byte
	offset, stamp    int64
}

func testConcurrentPushes(t *testing.T, nodes int) {
	const goroutines, pushesEach = 16, 200
	targets := [][2]string{{"orders", "p0"}, {"orders", "p1"}, {"orders", "p2"}, {"events", "p0"}}
	c := raftlogtest.New(t, nodes, nil)
	c.StartAll()
	c.Leader()
	shards := make([]*raftlog.Shard, 0, nodes)
	for id := uint64(1); id <= uint64(nodes); id++ {
		shards = append(shards, c.Shards[id])
	}

	var mu sync.Mutex
	byTx := map[string]pushed{}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			s := shards[g%nodes] // followers forward their proposals
			for p := range pushesEach {
				items := make([]raftlog.PushItem, 1+rng.IntN(5))
				for i := range items {
					tg := targets[rng.IntN(len(targets))]
					payload := make([]byte, rng.IntN(48))
					for j := range payload {
						payload[j] = byte(rng.UintN(256))
					}
					items[i] = item(tg[0], tg[1], fmt.Sprintf("g%d-p%d-i%d", g, p, i), payload)
				}
				answers, stamp, err := s.Push(raftlogtest.Ctx(t, testTimeout), raftlog.PushOp{Tenant: tenant, Items: items})
				if err != nil {
					t.Errorf("goroutine %d push %d: %v", g, p, err)
					return
				}
				mu.Lock()
				for i, a := range answers {
					if a.Duplicate || a.MessageID != items[i].MessageID {
						t.Errorf("%s: answer %+v for a new transaction id", items[i].TransactionID, a)
					}
					byTx[items[i].TransactionID] = pushed{queue: items[i].Queue, partition: items[i].Partition,
						payload: items[i].Payload, offset: a.Offset, stamp: stamp}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	// The answers alone: per partition, offsets 0..n-1, each given once.
	counts := map[[2]string]int64{}
	seen := map[[2]string]map[int64]string{}
	for tx, p := range byTx {
		k := [2]string{p.queue, p.partition}
		if seen[k] == nil {
			seen[k] = map[int64]string{}
		}
		if other, dup := seen[k][p.offset]; dup {
			t.Fatalf("%v offset %d answered to %s and %s", k, p.offset, other, tx)
		}
		seen[k][p.offset] = tx
		counts[k]++
	}
	for k, n := range counts {
		for off := range n {
			if _, ok := seen[k][off]; !ok {
				t.Fatalf("%v: %d records but offset %d was never answered", k, n, off)
			}
		}
	}

	// Every node, once it applied the last offset of every partition, reads
	// back exactly what was pushed.
	for id, s := range c.Shards {
		for k, n := range counts {
			waitRecords(t, s, tenant, k[0], k[1], n-1)
		}
		got := 0
		for k, n := range counts {
			b := readAll(t, s, k[0], k[1])
			if b.HighWatermark != n || b.LogStart != 0 || int64(len(b.Records)) != n {
				t.Fatalf("node %d %v: %d records, high watermark %d, log start %d; want %d, %d, 0",
					id, k, len(b.Records), b.HighWatermark, b.LogStart, n, n)
			}
			for i, r := range b.Records {
				want, ok := byTx[r.TransactionID]
				switch {
				case !ok:
					t.Fatalf("node %d %v offset %d: transaction id %q was never pushed", id, k, r.Offset, r.TransactionID)
				case r.Offset != int64(i) || r.Offset != want.offset || want.queue != k[0] || want.partition != k[1]:
					t.Fatalf("node %d: %s read at %v offset %d (position %d), answered %s/%s offset %d",
						id, r.TransactionID, k, r.Offset, i, want.queue, want.partition, want.offset)
				case !bytes.Equal(r.Payload, want.payload):
					t.Fatalf("node %d %s: payload %x, pushed %x", id, r.TransactionID, r.Payload, want.payload)
				case r.Stamp != want.stamp:
					t.Fatalf("node %d %s: stamp %d, the push's entry was stamped %d", id, r.TransactionID, r.Stamp, want.stamp)
				case i > 0 && r.Stamp < b.Records[i-1].Stamp:
					t.Fatalf("node %d %v: stamp goes back at offset %d", id, k, r.Offset)
				}
				if r.MessageID != mid(r.TransactionID) {
					t.Fatalf("node %d %s: message id %x", id, r.TransactionID, r.MessageID)
				}
				got++
			}
		}
		if got != len(byTx) {
			t.Fatalf("node %d holds %d records, %d were pushed", id, got, len(byTx))
		}
	}
	// A linearizable read through a node agrees with its local state.
	_, ls := c.Leader()
	for k, n := range counts {
		v, err := ls.Read(raftlogtest.Ctx(t, testTimeout), func(v *raftlog.View) (any, error) {
			return v.ReadRecords(tenant, k[0], k[1], n-1, raftlog.ReadLimits{})
		})
		if err != nil {
			t.Fatal(err)
		}
		if b := v.(raftlog.Batch); len(b.Records) != 1 || b.Records[0].Offset != n-1 {
			t.Fatalf("%v: linearizable read from %d: %+v", k, n-1, b)
		}
	}
}

// TestPushKeepsTheTraceID: a record keeps its producer's trace id, and one
// pushed without has none.
func TestPushKeepsTheTraceID(t *testing.T) {
	c := raftlogtest.New(t, 1, nil)
	c.StartAll()
	_, s := c.Leader()
	traced := item("q", "p", "a", []byte("A"))
	traced.TraceID = [16]byte{0xf5, 0x88, 1, 2, 3}
	push(t, s, traced, item("q", "p", "b", []byte("B")))
	b := readAll(t, s, "q", "p")
	if len(b.Records) != 2 || b.Records[0].TraceID != traced.TraceID || b.Records[1].TraceID != ([16]byte{}) {
		t.Fatalf("records %+v", b.Records)
	}
}

// TestPushKeepsTheProducerSub: a record keeps the subject it was pushed
// with, beside its trace id or alone, and one pushed without has none.
func TestPushKeepsTheProducerSub(t *testing.T) {
	c := raftlogtest.New(t, 1, nil)
	c.StartAll()
	_, s := c.Leader()
	signed := item("q", "p", "a", []byte("A"))
	signed.ProducerSub = "svc-orders"
	both := item("q", "p", "b", []byte("B"))
	both.ProducerSub, both.TraceID = "alice@example.com", [16]byte{0xf5, 0x88, 1}
	push(t, s, signed, both, item("q", "p", "c", []byte("C")))
	b := readAll(t, s, "q", "p")
	if len(b.Records) != 3 || b.Records[0].ProducerSub != signed.ProducerSub || b.Records[0].TraceID != ([16]byte{}) ||
		b.Records[1].ProducerSub != both.ProducerSub || b.Records[1].TraceID != both.TraceID || b.Records[2].ProducerSub != "" {
		t.Fatalf("records %+v", b.Records)
	}
}

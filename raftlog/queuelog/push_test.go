package queuelog_test

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// TestConcurrentPushes pushes from many goroutines, through every node, and
// checks the queue log's promise: per partition, offsets from 0 with no gap
// and no duplicate, each proposer's records in the order it pushed them, and
// every node reads back exactly the pushed bytes. The proposers push as
// clients do: a push of unknown outcome (a change of leader under -race
// loses a forwarded proposal) is asked again with the same transaction ids.
func TestConcurrentPushes(t *testing.T) {
	for _, nodes := range []int{1, 3} {
		t.Run(fmt.Sprintf("nodes=%d", nodes), func(t *testing.T) { testConcurrentPushes(t, nodes) })
	}
}

// pushed is what the test remembers of one pushed item: where it went and
// what it was answered, and which proposer's push and item it was.
type pushed struct {
	queue, partition string
	payload          []byte
	offset           int64
	push             pushID
	item             int
	// before, for a push answered by dedup after a try of unknown outcome,
	// is the stamp of the answering entry: the writing entry applied first.
	before int64
}

// pushID names one push: its proposer and its place among the proposer's.
type pushID struct{ proposer, push int }

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
	// stamps holds each push's entry stamp: the answer's, or for a push
	// answered by dedup, the stamp the first read of its records shows.
	stamps := map[pushID]int64{}
	var askedAgain, deduped int // pushes of unknown outcome, and those the original answered
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			s := shards[g%nodes] // followers forward their proposals
			for p := range pushesEach {
				items := make([]queuelog.PushItem, 1+rng.IntN(5))
				for i := range items {
					tg := targets[rng.IntN(len(targets))]
					payload := make([]byte, rng.IntN(48))
					for j := range payload {
						payload[j] = byte(rng.UintN(256))
					}
					items[i] = item(tg[0], tg[1], fmt.Sprintf("g%d-p%d-i%d", g, p, i), payload)
				}
				answers, stamp, unknown, err := pushAsClient(t, s, queuelog.PushOp{Tenant: tenant, Items: items})
				if err != nil {
					t.Errorf("goroutine %d push %d: %v", g, p, err)
					return
				}
				if len(answers) != len(items) {
					t.Errorf("goroutine %d push %d: %d items answered %d", g, p, len(items), len(answers))
					return
				}
				// One entry applies whole or not at all: the answers are
				// all new, or, only after a try of unknown outcome, all
				// the original's.
				dups := 0
				for _, a := range answers {
					if a.Duplicate {
						dups++
					}
				}
				if dups > 0 && (!unknown || dups != len(answers)) {
					t.Errorf("goroutine %d push %d: %d of %d answers duplicate (an earlier try of unknown outcome: %v)",
						g, p, dups, len(answers), unknown)
				}
				id := pushID{g, p}
				mu.Lock()
				for i, a := range answers {
					if a.MessageID != items[i].MessageID {
						t.Errorf("%s: answer %+v, message id pushed %x", items[i].TransactionID, a, items[i].MessageID)
					}
					w := pushed{queue: items[i].Queue, partition: items[i].Partition,
						payload: items[i].Payload, offset: a.Offset, push: id, item: i}
					if dups > 0 {
						w.before = stamp
					}
					byTx[items[i].TransactionID] = w
				}
				if dups == 0 {
					stamps[id] = stamp
				}
				if unknown {
					askedAgain++
				}
				if dups > 0 {
					deduped++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d pushes asked again after an unknown outcome, %d of them answered by dedup", askedAgain, deduped)

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
				case want.before != 0 && r.Ts >= want.before:
					t.Fatalf("node %d %s: stamp %d, not before the entry that answered it as a duplicate (%d)",
						id, r.TransactionID, r.Ts, want.before)
				case i > 0 && r.Ts < b.Records[i-1].Ts:
					t.Fatalf("node %d %v: stamp goes back at offset %d", id, k, r.Offset)
				}
				if st, ok := stamps[want.push]; !ok {
					stamps[want.push] = r.Ts // answered by dedup: its first read
				} else if r.Ts != st {
					t.Fatalf("node %d %s: stamp %d, the push's entry was stamped %d", id, r.TransactionID, r.Ts, st)
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
	// A proposer pushes one after another: its records follow in each
	// partition in the order it pushed them, and each of its pushes is an
	// entry stamped after the one before.
	mine := make([][]pushed, goroutines)
	for _, p := range byTx {
		mine[p.push.proposer] = append(mine[p.push.proposer], p)
	}
	for g, ps := range mine {
		slices.SortFunc(ps, func(a, b pushed) int {
			return cmp.Or(cmp.Compare(a.push.push, b.push.push), cmp.Compare(a.item, b.item))
		})
		last := map[[2]string]pushed{}
		for i, p := range ps {
			k := [2]string{p.queue, p.partition}
			if l, ok := last[k]; ok && p.offset <= l.offset {
				t.Fatalf("goroutine %d: push %d item %d at %v offset %d, not after push %d item %d at offset %d",
					g, p.push.push, p.item, k, p.offset, l.push.push, l.item, l.offset)
			}
			last[k] = p
			if i > 0 && p.push != ps[i-1].push && stamps[p.push] <= stamps[ps[i-1].push] {
				t.Fatalf("goroutine %d: push %d stamped %d, push %d before it %d",
					g, p.push.push, stamps[p.push], ps[i-1].push.push, stamps[ps[i-1].push])
			}
		}
	}
	// A linearizable read through a node agrees with its local state.
	_, ls := c.Leader()
	for k, n := range counts {
		v, err := ls.Read(raftlogtest.Ctx(t, testTimeout), func(v *raftlog.View) (any, error) {
			return queuelog.ReadRecords(v, tenant, k[0], k[1], n-1, queuelog.ReadLimits{})
		})
		if err != nil {
			t.Fatal(err)
		}
		if b := v.(queuelog.Batch); len(b.Records) != 1 || b.Records[0].Offset != n-1 {
			t.Fatalf("%v: linearizable read from %d: %+v", k, n-1, b)
		}
	}
}

// TestPushKeepsTheTraceID: a record keeps its producer's trace id, and one
// pushed without has none.
func TestPushKeepsTheTraceID(t *testing.T) {
	_, s := started(t, 1)
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
	_, s := started(t, 1)
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

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"
)

// The inputs of the streams tests and what each implies the sink holds.

// windowBase is the event time (ms) of a window input's first record, on a
// window boundary.
const windowBase int64 = 1_700_000_000_000

// windowInput is the window pipeline's input: per partition records
// i = 0…n-1 of the keys <partition>-a and <partition>-b in turn, event time
// windowBase + i·step, pushed in event-time order; then one sentinel of key
// <partition>-end an hour of event time later. The sentinel moves the
// partition's watermark past every earlier window, so each is emitted; its
// own window stays open (the pipeline runs without the idle flush) and is
// not part of what the sink must hold.
type windowInput struct {
	source string
	parts  []string
	n      int   // records per partition, sentinel aside
	step   int64 // ms of event time from one record to the next
	winMs  int64 // the pipeline's tumbling window
}

func (in windowInput) record(p, i int) (key string, ts, v int64) {
	key = fmt.Sprintf("%s-%c", in.parts[p], 'a'+i%2)
	return key, windowBase + int64(i)*in.step, int64((i*31+p*7)%17 + 1)
}

func (in windowInput) item(p, i int) pushItem {
	key, ts, v := in.record(p, i)
	return pushItem{Queue: in.source, Partition: in.parts[p], TransactionID: fmt.Sprintf("%s-%s-%d", in.source, in.parts[p], i),
		Payload: json.RawMessage(fmt.Sprintf(`{"key":%q,"ts":%d,"v":%d}`, key, ts, v))}
}

// sentinelTs is the event time of every partition's sentinel.
func (in windowInput) sentinelTs() int64 { return windowBase + int64(in.n)*in.step + 3_600_000 }

func (in windowInput) sentinel(p int) pushItem {
	return pushItem{Queue: in.source, Partition: in.parts[p], TransactionID: fmt.Sprintf("%s-%s-end", in.source, in.parts[p]),
		Payload: json.RawMessage(fmt.Sprintf(`{"key":"%s-end","ts":%d,"v":0}`, in.parts[p], in.sentinelTs()))}
}

// items are the records [from, to) of every partition, partition by
// partition in order, for one push.
func (in windowInput) items(from, to int) []pushItem {
	var out []pushItem
	for p := range in.parts {
		for i := from; i < min(to, in.n); i++ {
			out = append(out, in.item(p, i))
		}
	}
	return out
}

func (in windowInput) sentinels() []pushItem {
	out := make([]pushItem, len(in.parts))
	for p := range in.parts {
		out[p] = in.sentinel(p)
	}
	return out
}

// want is every window's result, per sink partition (the source's), each
// once: {"key","windowStart","sum"}.
func (in windowInput) want() map[string][]string {
	type win struct {
		key   string
		start int64
	}
	out := map[string][]string{}
	for p, part := range in.parts {
		sums := map[win]int64{}
		var order []win
		for i := range in.n {
			key, ts, v := in.record(p, i)
			w := win{key, ts / in.winMs * in.winMs}
			if _, ok := sums[w]; !ok {
				order = append(order, w)
			}
			sums[w] += v
		}
		for _, w := range order {
			out[part] = append(out[part], canonOf(map[string]any{"key": w.key, "windowStart": w.start, "sum": sums[w]}))
		}
	}
	return out
}

// windowProducer pushes a window input over time, rounds records per
// partition every pause, then the sentinels. Each push carries its
// transaction ids and is sent again, to any live node, until one answers
// it: deduplication keeps every record once, and a round goes out only
// after the one before it is in, so each partition stays in event-time
// order.
type windowProducer struct {
	in      windowInput
	round   int
	pause   time.Duration
	pushed  atomic.Int64 // records per partition pushed so far
	retries atomic.Int64 // pushes sent again
	done    chan struct{}
	err     error // set before done closes
}

func newWindowProducer(in windowInput, round int, pause time.Duration) *windowProducer {
	return &windowProducer{in: in, round: round, pause: pause, done: make(chan struct{})}
}

func (p *windowProducer) run(ctx context.Context, live *liveSet) {
	defer close(p.done)
	for from := 0; from < p.in.n; from += p.round {
		if p.err = p.push(ctx, live, p.in.items(from, from+p.round)); p.err != nil {
			return
		}
		p.pushed.Store(int64(min(from+p.round, p.in.n)))
		select {
		case <-ctx.Done():
			p.err = ctx.Err()
			return
		case <-time.After(p.pause):
		}
	}
	p.err = p.push(ctx, live, p.in.sentinels())
}

func (p *windowProducer) push(ctx context.Context, live *liveSet, items []pushItem) error {
	for k := 0; ; k++ {
		nodes := live.list()
		if len(nodes) > 0 {
			actx, cancel := context.WithTimeout(ctx, 10*time.Second)
			ans, err := nodes[k%len(nodes)].push(actx, items...)
			cancel()
			if err == nil && pushedAll(ans, len(items)) {
				return nil
			}
		}
		if ctx.Err() != nil {
			return fmt.Errorf("push of %d items never answered: %w", len(items), ctx.Err())
		}
		p.retries.Add(1)
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// pushedAll reports whether a push's answers say each of n items is in
// the log (written now, or before under its transaction id).
func pushedAll(ans []pushAnswer, n int) bool {
	if len(ans) != n {
		return false
	}
	for _, a := range ans {
		if a.Status != "queued" && a.Status != "duplicate" {
			return false
		}
	}
	return true
}

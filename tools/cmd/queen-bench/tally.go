package main

import (
	"sync"
	"sync/atomic"
	"time"
)

// tally is what the connections of one timed run count together: records
// moved, requests sent, errors with the first one's text, empty answers,
// and every latency measured.
type tally struct {
	records, requests, errs, empty atomic.Int64
	// start is when the clock started: newTally's call.
	start    time.Time
	firstErr atomic.Value // string
	mu       sync.Mutex
	lat      []time.Duration
}

// newTally starts a run's clock.
func newTally() *tally { return &tally{start: time.Now()} }

// each runs conn for each of n connections at once and waits for them
// all; conn returns the latencies it measured.
func (t *tally) each(n int, conn func(c int) []time.Duration) {
	var wg sync.WaitGroup
	for c := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := conn(c)
			t.mu.Lock()
			t.lat = append(t.lat, mine...)
			t.mu.Unlock()
		}()
	}
	wg.Wait()
}

// fail counts one error and keeps the text of the first.
func (t *tally) fail(err error) {
	t.errs.Add(1)
	t.firstErr.CompareAndSwap(nil, err.Error())
}

// first is the first error's text; ok is false when there was none.
func (t *tally) first() (e string, ok bool) {
	e, ok = t.firstErr.Load().(string)
	return e, ok
}

// report is the run's figures with its clock stopped now.
func (t *tally) report() *report {
	return &report{records: t.records.Load(), requests: t.requests.Load(), errors: t.errs.Load(), empty: t.empty.Load(),
		elapsed: time.Since(t.start), lat: t.lat}
}

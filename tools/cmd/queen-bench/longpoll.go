package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// grace is how long a pair waits, once its pop's request is written, before
// it pushes: HTTP gives no sign that the broker has parked the pop.
const grace = 20 * time.Millisecond

// runLongpoll is -mode longpoll: how fast a parked pop is answered once a
// record arrives. -c pairs, pair i on partition "i" of -queue; each pair
// loops: a pop with wait=true&timeout=30000 (group -group,
// subscriptionMode=all) on the node urls[i mod n]; 20 ms after its request
// is written, a push of one record to the partition through the next node,
// urls[(i+1) mod n], so that with several nodes the wake-up crosses nodes;
// then the ack of what the pop leased. The latency is from the moment the
// push's answer arrives to the moment the pop's answer arrives (both when
// their headers arrive), so the grace is no part of it; it can be negative
// when the broker answers the pop first. Before the clock, each partition
// is drained of records left by earlier runs. A round that starts before
// -duration runs to its end.
func runLongpoll(o options) (*report, error) {
	client := newClient(2 * o.conns)
	prefix := runPrefix()
	payload := padPayload(o.size)
	routes, paths := make([]string, o.conns), make([]string, o.conns)
	var drained atomic.Int64
	var drainErr atomic.Value
	var wg sync.WaitGroup
	for i := range paths {
		routes[i] = "/api/v1/pop/queue/" + url.PathEscape(o.queue) + "/partition/" + strconv.Itoa(i)
		q := url.Values{"consumerGroup": {o.group}, "batch": {"1"}, "wait": {"true"}, "timeout": {"30000"}, "subscriptionMode": {"all"}}
		paths[i] = routes[i] + "?" + q.Encode()
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := drain(client, o.urls[i%len(o.urls)], routes[i], o.group)
			drained.Add(int64(n))
			if err != nil {
				drainErr.CompareAndSwap(nil, err)
			}
		}()
	}
	wg.Wait()
	if err, ok := drainErr.Load().(error); ok {
		return nil, fmt.Errorf("draining the pairs' partitions: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.duration)
	defer cancel()
	var early atomic.Int64
	var mu sync.Mutex
	var fromSent []time.Duration
	// empty counts the parked pops that timed out.
	t := newTally()
	t.each(o.conns, func(i int) (mine []time.Duration) {
		w := waker{client: client, popURL: o.urls[i%len(o.urls)], pushURL: o.urls[(i+1)%len(o.urls)],
			popPath: paths[i], group: o.group}
		var mineSent []time.Duration
		for k := 0; ctx.Err() == nil; k++ {
			txn := fmt.Sprintf("%s%d-%d", prefix, i, k)
			body := fmt.Sprintf(`{"items":[{"queue":%q,"partition":"%d","transactionId":%q,"payload":%s}]}`,
				o.queue, i, txn, payload)
			d, sent, reqs, err := w.round(txn, []byte(body))
			t.requests.Add(int64(reqs))
			switch {
			case errors.Is(err, errTimedOut):
				t.empty.Add(1)
				fallthrough
			case err != nil:
				t.fail(err)
				time.Sleep(10 * time.Millisecond)
				continue
			}
			t.records.Add(1)
			if d < 0 {
				early.Add(1)
			}
			mine, mineSent = append(mine, d), append(mineSent, sent)
		}
		mu.Lock()
		fromSent = append(fromSent, mineSent...)
		mu.Unlock()
		return mine
	})
	r := t.report()
	e, failed := t.first()
	if failed && r.records == 0 {
		return nil, fmt.Errorf("no parked pop was answered; the first error: %s", e)
	}
	r.notes = append(r.notes,
		"latency: from the push's answer to the parked pop's answer; the 20 ms grace before each push is not in it",
		"from the push being sent ms "+percentiles(fromSent),
		fmt.Sprintf("pop answered before the push's answer %d times (negative latencies)", early.Load()))
	if n := drained.Load(); n > 0 {
		r.notes = append(r.notes, fmt.Sprintf("drained %d records of earlier runs before the clock", n))
	}
	if failed {
		r.notes = append(r.notes, "first error: "+e)
	}
	return r, nil
}

// errTimedOut is a parked pop answered 204 although a record was pushed.
var errTimedOut = errors.New("a parked pop timed out (204) though its partition got a record")

// waker runs the rounds of one pair.
type waker struct {
	client                   *http.Client
	popURL, pushURL, popPath string
	group                    string
}

// round parks a pop, pushes body (one record, transaction id txn) once the
// pop's request is written and the grace has passed, waits for the pop's
// answer and acks what it leased. It returns the pop's answer time less
// the push's answer time, and less the push's sending time, and how many
// requests it made.
func (w *waker) round(txn string, body []byte) (lat, fromSent time.Duration, reqs int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	wrote := make(chan struct{})
	var once sync.Once
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { once.Do(func() { close(wrote) }) }}
	type popped struct {
		p   popAnswer
		ok  bool
		err error
	}
	done := make(chan popped, 1)
	go func() {
		p, ok, err := pop(httptrace.WithClientTrace(ctx, trace), w.client, w.popURL, w.popPath)
		done <- popped{p, ok, err}
	}()
	reqs = 1
	var r popped
	answered := true
	select {
	case <-wrote:
		select {
		case <-time.After(grace):
			answered = false
		case r = <-done:
		}
	case r = <-done:
	}
	switch { // answered before anything was pushed
	case answered && r.ok:
		_, err := ack(ctx, w.client, w.popURL, w.group, r.p.Messages)
		return 0, 0, reqs + 1, errors.Join(fmt.Errorf("a parked pop was answered before the push, with %s",
			r.p.Messages[0].TransactionID), err)
	case answered && r.err == nil:
		return 0, 0, reqs, errors.New("a pop with wait=true answered 204 at once, before the push")
	case answered:
		return 0, 0, reqs, r.err
	}
	sent := time.Now()
	res, pa, err := pushAll(ctx, w.client, w.pushURL, body)
	reqs++
	if err == nil && (len(res) != 1 || res[0].Status != "queued") {
		err = fmt.Errorf("the push of %s answered %.200s", txn, pa.body)
	}
	if err != nil {
		cancel() // the pop: whatever it gets next round is checked
		<-done
		return 0, 0, reqs, err
	}
	r = <-done
	switch {
	case r.err != nil:
		return 0, 0, reqs, r.err
	case !r.ok:
		return 0, 0, reqs, errTimedOut
	}
	_, ackErr := ack(ctx, w.client, w.popURL, w.group, r.p.Messages)
	reqs++
	if got := r.p.Messages[0].TransactionID; got != txn {
		return 0, 0, reqs, fmt.Errorf("a parked pop leased %s, not the record pushed, %s", got, txn)
	}
	return r.p.at.Sub(pa.at), r.p.at.Sub(sent), reqs, ackErr
}

// drain empties a partition for group before the clock: pops of route
// (a pop route of one partition) without waiting, and acks, until a pop
// answers 204. It returns how many records it acked.
func drain(client *http.Client, base, route, group string) (int, error) {
	q := url.Values{"consumerGroup": {group}, "batch": {"1000"}, "wait": {"false"}, "subscriptionMode": {"all"}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	n := 0
	for {
		p, ok, err := pop(ctx, client, base, route+"?"+q.Encode())
		if err != nil || !ok {
			return n, err
		}
		settled, err := ack(ctx, client, base, group, p.Messages)
		if err != nil {
			return n, err
		}
		for _, s := range settled {
			if s {
				n++
			}
		}
	}
}

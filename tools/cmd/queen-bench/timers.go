package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// runTimers is -mode timers. It schedules -timers timers on -queue
// (partition Default), in calls of -batch (at most 256) from -c
// connections: timer i is due -delay after the start plus i/-timers of
// -spread (-spread 0: all due at the same moment), each call's delayMs
// reckoned from when it is sent. Meanwhile a reader on the leader fetches
// the queue from its high watermark before the run (maxWaitMs, so it
// waits on the broker, not on a sleep) until every timer has fired or
// -wait has passed since the last deliverAt. The fire delay of a timer is
// its record's ts (the fire entry's stamp) less the deliverAt its schedule
// answered, both the broker's; the wall delay is when the fetch that read
// the record was answered less that deliverAt. timers/s is over the
// firing window, the first fire's ts to the last's. Each record must be a
// timer of this run, fired once, not before its deliverAt, with its
// payload: anything else is counted and named.
func runTimers(o options) (*report, error) {
	client := newClient(o.conns + 1)
	prefix := runPrefix()
	payload := padPayload(o.size)
	b64 := base64.StdEncoding.EncodeToString([]byte(payload))
	leader := leaderURL(client, o.urls)
	from, err := highWatermark(client, leader, o.queue)
	if err != nil {
		return nil, err
	}
	due := make([]time.Time, o.timers) // deliverAt as the broker answered it
	fired := make([]firing, o.timers)  // as the reader saw it
	readCtx, stopReading := context.WithCancel(context.Background())
	defer stopReading()
	type read struct {
		n       int
		foreign int
		fetches int
		err     error
	}
	readDone := make(chan read, 1)
	go func() {
		var r read
		r.n, r.foreign, r.fetches, r.err = readFires(readCtx, client, leader, o.queue, from, prefix, payload, fired)
		readDone <- r
	}()

	calls := (o.timers + o.batch - 1) / o.batch
	var next atomic.Int64
	t := newTally()
	start := t.start
	t.each(min(o.conns, calls), func(c int) (mine []time.Duration) {
		url := o.urls[c%len(o.urls)]
		for {
			k := int(next.Add(1) - 1)
			if k >= calls {
				break
			}
			lo, hi := k*o.batch, min((k+1)*o.batch, o.timers)
			t0 := time.Now()
			body := scheduleBody(o, prefix, b64, start, t0, lo, hi)
			err := schedule(client, url, body, prefix, lo, due[lo:hi])
			mine = append(mine, time.Since(t0))
			t.requests.Add(1)
			if err != nil {
				t.fail(err)
			}
		}
		return mine
	})
	scheduledAt := time.Now()
	scheduled := scheduledAt.Sub(start)
	if e, ok := t.first(); ok {
		return nil, fmt.Errorf("scheduling: %d of %d calls failed, the first with: %s", t.errs.Load(), calls, e)
	}
	last := due[0]
	for _, d := range due {
		if d.After(last) {
			last = d
		}
	}
	deadline := time.AfterFunc(time.Until(last)+o.wait, stopReading)
	defer deadline.Stop()
	rd := <-readDone
	if rd.err != nil && readCtx.Err() == nil {
		return nil, fmt.Errorf("reading the fired timers: %w", rd.err)
	}
	return timersReport(o, due, fired, rd.n, rd.foreign, int64(calls+rd.fetches), scheduled, scheduledAt, t.lat), nil
}

// firing is what the reader saw of a timer's record: its ts, when the
// fetch that read it was answered, and how many times it came.
type firing struct {
	ts, seen time.Time
	times    int
	badBody  bool
}

// scheduleBody is one timers call scheduling timers lo..hi-1: timer i is
// due at start + -delay + i/-timers of -spread, as a delayMs from now.
func scheduleBody(o options, prefix, b64 string, start, now time.Time, lo, hi int) []byte {
	return opsBody(lo, hi, func(b *strings.Builder, i int) {
		at := start.Add(o.delay + time.Duration(int64(o.spread)*int64(i)/int64(o.timers)))
		ms := max(at.Sub(now).Milliseconds(), 0)
		fmt.Fprintf(b, `{"op":"schedule","queue":%q,"timerKey":"%sk%d","delayMs":%d,"txn":"%s%d","payload":%q}`,
			o.queue, prefix, i, ms, prefix, i, b64)
	})
}

// schedule sends one timers call of the timers from lo on and fills due
// with their deliverAt; every one must be answered scheduled with its txn.
func schedule(client *http.Client, url string, body []byte, prefix string, lo int, due []time.Time) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a, err := send(ctx, client, url+"/api/v1/timers", body)
	if err != nil {
		return err
	}
	var out struct {
		Results []struct {
			OK        bool   `json:"ok"`
			Status    string `json:"status"`
			Txn       string `json:"txn"`
			DeliverAt string `json:"deliverAt"`
		} `json:"results"`
	}
	if err := json.Unmarshal(a.body, &out); err != nil || len(out.Results) != len(due) {
		return fmt.Errorf("a timers call of %d answered %.200s", len(due), a.body)
	}
	for j, res := range out.Results {
		want := prefix + strconv.Itoa(lo+j)
		t, err := time.Parse(time.RFC3339Nano, res.DeliverAt)
		if !res.OK || res.Status != "scheduled" || res.Txn != want || err != nil {
			return fmt.Errorf("timer %s answered ok %v status %q txn %q deliverAt %q", want, res.OK, res.Status, res.Txn, res.DeliverAt)
		}
		due[j] = t
	}
	return nil
}

// readFires fetches queue's partition Default from offset on, through
// url, until every timer of fired has come or ctx ends, and records each
// of this run's (transaction id prefix and its number) in fired. It
// returns how many distinct timers came, the records of others, and the
// fetches made.
func readFires(ctx context.Context, client *http.Client, url, queue string, offset int64, prefix, payload string,
	fired []firing) (n, foreign, fetches int, err error) {
	for n < len(fired) {
		body, _ := json.Marshal(map[string]any{"entries": []map[string]any{
			{"queue": queue, "partition": "Default", "offset": offset, "maxBytes": 8 << 20}}, "maxWaitMs": 1000})
		a, err := send(ctx, client, url+"/api/v1/fetch", body)
		if err != nil {
			return n, foreign, fetches, err
		}
		fetches++
		var out struct {
			Entries []struct {
				Records []struct {
					Offset        int64           `json:"offset"`
					TransactionID string          `json:"transactionId"`
					Payload       json.RawMessage `json:"payload"`
					TS            string          `json:"ts"`
				} `json:"records"`
				Error string `json:"error"`
			} `json:"entries"`
		}
		if err := json.Unmarshal(a.body, &out); err != nil || len(out.Entries) != 1 {
			return n, foreign, fetches, fmt.Errorf("fetch answered %.200s", a.body)
		}
		if e := out.Entries[0].Error; e != "" && e != "UNKNOWN_TOPIC_OR_PARTITION" {
			return n, foreign, fetches, fmt.Errorf("fetch at offset %d: %s", offset, e)
		}
		for _, rec := range out.Entries[0].Records {
			offset = rec.Offset + 1
			i, err := strconv.Atoi(strings.TrimPrefix(rec.TransactionID, prefix))
			if !strings.HasPrefix(rec.TransactionID, prefix) || err != nil || i < 0 || i >= len(fired) {
				foreign++
				continue
			}
			ts, err := time.Parse(time.RFC3339Nano, rec.TS)
			if err != nil {
				return n, foreign, fetches, fmt.Errorf("record %d: ts %q: %w", rec.Offset, rec.TS, err)
			}
			f := &fired[i]
			if f.times == 0 {
				n++
				f.ts, f.seen = ts, a.at
			}
			f.times++
			f.badBody = f.badBody || string(rec.Payload) != payload
		}
	}
	return n, foreign, fetches, nil
}

// timersReport sums up a timers run: rates, delays and what went wrong.
func timersReport(o options, due []time.Time, fired []firing, n, foreign int, requests int64,
	scheduled time.Duration, scheduledAt time.Time, schedLat []time.Duration) *report {
	var delays, wall []time.Duration
	var first, last time.Time
	var early, twice, badBody []string
	stamps := map[time.Time]bool{} // one stamp per fire entry
	for i, f := range fired {
		if f.times == 0 {
			continue
		}
		d := f.ts.Sub(due[i])
		delays, wall = append(delays, d), append(wall, f.seen.Sub(due[i]))
		if d < 0 {
			early = append(early, fmt.Sprintf("timer %d fired at %s, before its deliverAt %s", i, f.ts.Format(time.RFC3339Nano), due[i].Format(time.RFC3339Nano)))
		}
		if f.times > 1 {
			twice = append(twice, fmt.Sprintf("timer %d came %d times", i, f.times))
		}
		if f.badBody {
			badBody = append(badBody, fmt.Sprintf("timer %d's record has another payload", i))
		}
		if first.IsZero() || f.ts.Before(first) {
			first = f.ts
		}
		if f.ts.After(last) {
			last = f.ts
		}
		stamps[f.ts] = true
	}
	window := last.Sub(first)
	dueFirst, dueLast := due[0], due[0]
	for _, d := range due {
		if d.Before(dueFirst) {
			dueFirst = d
		}
		if d.After(dueLast) {
			dueLast = d
		}
	}
	r := &report{records: int64(n), requests: requests, errors: int64(len(early) + len(twice) + len(badBody) + len(fired) - n),
		elapsed: window, lat: delays}
	rate := "all in one fire entry"
	if window > 0 {
		rate = fmt.Sprintf("%.0f", float64(n-1)/window.Seconds())
	}
	r.figures = []string{
		fmt.Sprintf("timers/s %s  fired %d of %d  firing window %.3fs  fire entries %d  errors %d",
			rate, n, len(fired), window.Seconds(), len(stamps), r.errors),
		"fire delay ms (ts - deliverAt) " + percentiles(delays),
		"wall delay ms (fetch answered - deliverAt) " + percentiles(wall),
		fmt.Sprintf("scheduled %d in %.3fs (%.0f timers/s, %d calls)  deliverAt span %.3fs  schedule call ms %s",
			len(fired), scheduled.Seconds(), float64(len(fired))/scheduled.Seconds(), len(schedLat),
			dueLast.Sub(dueFirst).Seconds(), percentiles(schedLat)),
		fmt.Sprintf("scheduling ended %.3fs before the first deliverAt (negative: it overlapped the fires)",
			dueFirst.Sub(scheduledAt).Seconds()),
		fmt.Sprintf("early %d  twice %d  wrong payload %d  missing %d  foreign records %d",
			len(early), len(twice), len(badBody), len(fired)-n, foreign),
	}
	for _, l := range [][]string{early, twice, badBody} {
		r.notes = append(r.notes, l[:min(len(l), 5)]...)
	}
	if n < len(fired) {
		r.notes = append(r.notes, fmt.Sprintf("%d timers had not fired %s after the last deliverAt", len(fired)-n, o.wait))
	}
	return r
}

// leaderURL is the node whose /health says it leads, else the first: the
// timers fire there, so a fetch there sees them first.
func leaderURL(client *http.Client, urls []string) string {
	for _, u := range urls {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		a, err := send(ctx, client, u+"/health", nil)
		cancel()
		var h struct {
			Raft struct {
				Role string `json:"role"`
			} `json:"raft"`
		}
		if err == nil && json.Unmarshal(a.body, &h) == nil && h.Raft.Role == "leader" {
			return u
		}
	}
	return urls[0]
}

// highWatermark is the next offset of queue's partition Default (0 when
// there is no such queue yet).
func highWatermark(client *http.Client, url, queue string) (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	body, _ := json.Marshal(map[string]any{"entries": []map[string]any{
		{"queue": queue, "partition": "Default", "offset": 0, "maxBytes": 1}}})
	a, err := send(ctx, client, url+"/api/v1/fetch", body)
	if err != nil {
		return 0, err
	}
	var out struct {
		Entries []struct {
			HighWatermark int64  `json:"highWatermark"`
			Error         string `json:"error"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(a.body, &out); err != nil || len(out.Entries) != 1 {
		return 0, fmt.Errorf("fetch answered %.200s", a.body)
	}
	switch e := out.Entries[0].Error; e {
	case "", "UNKNOWN_TOPIC_OR_PARTITION":
		return out.Entries[0].HighWatermark, nil
	default:
		return 0, errors.New("fetch: " + e)
	}
}

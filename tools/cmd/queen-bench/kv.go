package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// maxKVValue is the broker's cap on a KV value, compact (API.md §5).
const maxKVValue = 64 << 10

// maxKVOps is the broker's cap on the operations of one POST /api/v1/kv
// (API.md §5, kv_too_many_ops).
const maxKVOps = 256

// runKV is -mode kvput and -mode kvget: -c connections, each a loop of one
// call after another on the single-key routes of namespace -queue, until
// -duration. kvput puts a JSON value of about -size bytes (forever) to one
// of the -keys keys per call: every call is one raft entry, committed on a
// majority and fsynced before it is answered. kvget first puts every key
// (calls of maxKVOps operations, before the clock starts), then reads one
// key per call with GET, which the broker answers after a read index: a
// linearizable read. records counts the calls that did what they were sent
// for (a put applied, a get that found its key).
func runKV(o options) (*report, error) {
	client := newClient(o.conns)
	value := padPayload(o.size)
	if o.mode == "kvget" {
		if err := kvPrefill(client, o, value); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.duration)
	defer cancel()
	putBody := []byte(`{"value":` + value + `,"forever":true}`)
	var records, requests, errs atomic.Int64
	var firstErr atomic.Value
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < o.conns; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base := o.urls[c%len(o.urls)] + "/api/v1/kv/" + url.PathEscape(o.queue) + "/"
			var mine []time.Duration
			for i := 0; ctx.Err() == nil; i++ {
				key := kvKey((c*7919 + i) % o.keys)
				t0 := time.Now()
				var err error
				if o.mode == "kvput" {
					err = kvPut(ctx, client, base+key, putBody)
				} else {
					err = kvGet(ctx, client, base+key)
				}
				if ctx.Err() != nil {
					break // cut by -duration
				}
				mine = append(mine, time.Since(t0))
				requests.Add(1)
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				records.Add(1)
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	r := &report{records: records.Load(), requests: requests.Load(), errors: errs.Load(), elapsed: time.Since(start), lat: lat}
	if e, ok := firstErr.Load().(string); ok && r.records == 0 {
		return nil, fmt.Errorf("every request failed, the first with: %s", e)
	}
	return r, nil
}

// kvKey is the name of key i of a run.
func kvKey(i int) string { return fmt.Sprintf("k-%d", i) }

// kvPut sends one PUT and checks its answer says applied.
func kvPut(ctx context.Context, client *http.Client, url string, body []byte) error {
	a, err := sendMethod(ctx, client, http.MethodPut, url, body)
	if err != nil {
		return err
	}
	var out struct {
		Applied bool   `json:"applied"`
		Reason  string `json:"reason"`
	}
	if err := json.Unmarshal(a.body, &out); err != nil {
		return fmt.Errorf("kv put answered %.200s", a.body)
	}
	if !out.Applied {
		return fmt.Errorf("kv put not applied: %s", out.Reason)
	}
	return nil
}

// kvGet sends one GET and checks the key was found.
func kvGet(ctx context.Context, client *http.Client, url string) error {
	a, err := send(ctx, client, url, nil)
	if err != nil {
		return err
	}
	var out struct {
		Found bool `json:"found"`
	}
	if err := json.Unmarshal(a.body, &out); err != nil {
		return fmt.Errorf("kv get answered %.200s", a.body)
	}
	if !out.Found {
		return fmt.Errorf("kv get of %s: not found, though every key was put before the clock started", url)
	}
	return nil
}

// kvPrefill puts every key of the run with value, in POST /api/v1/kv calls
// of maxKVOps operations, from -c connections at once.
func kvPrefill(client *http.Client, o options, value string) error {
	calls := make(chan int)
	errc := make(chan error, o.conns)
	var wg sync.WaitGroup
	for c := 0; c < o.conns; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for first := range calls {
				body := kvPutBody(o.queue, first, min(first+maxKVOps, o.keys), value)
				if err := kvCallApplied(client, o.urls[c%len(o.urls)], body); err != nil {
					errc <- fmt.Errorf("prefill of keys %d..: %w", first, err)
					return
				}
			}
		}()
	}
	var err error
	for first := 0; first < o.keys && err == nil; first += maxKVOps {
		select {
		case calls <- first:
		case err = <-errc:
		}
	}
	close(calls)
	wg.Wait()
	close(errc)
	if err != nil {
		return err
	}
	return <-errc // nil when no worker failed
}

// kvPutBody is the POST /api/v1/kv body that puts keys [from, to) of
// namespace ns with value, forever.
func kvPutBody(ns string, from, to int, value string) []byte {
	var b strings.Builder
	b.WriteString(`{"operations":[`)
	for i := from; i < to; i++ {
		if i > from {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"op":"put","ns":%q,"key":%q,"value":%s,"forever":true}`, ns, kvKey(i), value)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// kvCallApplied sends one POST /api/v1/kv of puts and checks every result
// says applied.
func kvCallApplied(client *http.Client, url string, body []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := send(ctx, client, url+"/api/v1/kv", body)
	if err != nil {
		return err
	}
	var out struct {
		Results []struct {
			Applied bool `json:"applied"`
		} `json:"results"`
	}
	if err := json.Unmarshal(a.body, &out); err != nil || len(out.Results) == 0 {
		return fmt.Errorf("kv call answered %.200s", a.body)
	}
	for i, r := range out.Results {
		if !r.Applied {
			return fmt.Errorf("kv call: put %d not applied: %.200s", i, a.body)
		}
	}
	return nil
}

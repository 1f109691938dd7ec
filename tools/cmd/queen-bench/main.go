// Command queen-bench loads a running Queen broker over HTTP: -c
// connections each push batches of -batch records of -size bytes (or fetch
// them back with -mode fetch) for -duration or until -count records, spread
// over the -url nodes, and prints records/s and latency percentiles.
//
//	queen-bench -url http://127.0.0.1:6632 -c 64 -batch 100 -size 200 -duration 10s
//	queen-bench -url http://10.0.0.1:6632,http://10.0.0.2:6632 -mode fetch -c 16
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type options struct {
	urls       []string
	conns      int
	batch      int
	size       int
	duration   time.Duration
	count      int64
	mode       string
	queue      string
	partitions int
}

func main() {
	var o options
	urls := flag.String("url", "http://127.0.0.1:6632", "broker URLs, comma-separated; connections spread over them")
	flag.IntVar(&o.conns, "c", 64, "concurrent connections")
	flag.IntVar(&o.batch, "batch", 1, "records per push (fetch: maxBytes in records of -size)")
	flag.IntVar(&o.size, "size", 200, "payload bytes per record, about")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long to run")
	flag.Int64Var(&o.count, "count", 0, "stop after this many records instead (0: run for -duration)")
	flag.StringVar(&o.mode, "mode", "push", "push or fetch")
	flag.StringVar(&o.queue, "queue", "bench", "queue to use")
	flag.IntVar(&o.partitions, "partitions", 100, "partitions the load spreads over")
	flag.Parse()
	o.urls = strings.Split(*urls, ",")
	if o.mode != "push" && o.mode != "fetch" || o.conns < 1 || o.batch < 1 || o.partitions < 1 {
		fmt.Fprintln(os.Stderr, "queen-bench: -mode is push or fetch; -c, -batch and -partitions are 1 or more")
		os.Exit(2)
	}
	r, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "queen-bench:", err)
		os.Exit(1)
	}
	fmt.Print(r.String(o))
}

type report struct {
	records, requests, errors int64
	elapsed                   time.Duration
	lat                       []time.Duration
}

func (r *report) String(o options) string {
	slices.Sort(r.lat)
	pct := func(p int) float64 {
		if len(r.lat) == 0 {
			return 0
		}
		return float64(r.lat[min(len(r.lat)*p/100, len(r.lat)-1)]) / 1e6
	}
	s := r.elapsed.Seconds()
	return fmt.Sprintf("mode %s, %d connections, %d records/request, %d bytes, %d nodes, %.1fs\n"+
		"records/s %.0f  requests/s %.0f  errors %d\n"+
		"latency ms p50 %.2f  p90 %.2f  p99 %.2f  max %.2f\n",
		o.mode, o.conns, o.batch, o.size, len(o.urls), s, float64(r.records)/s, float64(r.requests)/s, r.errors,
		pct(50), pct(90), pct(99), pct(100))
}

func run(o options) (*report, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.conns, MaxConnsPerHost: o.conns}, Timeout: 60 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), o.duration)
	defer cancel()
	if o.count > 0 {
		ctx, cancel = context.WithCancel(context.Background())
		defer cancel()
	}
	payload := `{"pad":"` + strings.Repeat("x", max(o.size-10, 0)) + `"}`
	var records, requests, errs atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	var firstErr atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < o.conns; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			url := o.urls[c%len(o.urls)]
			var mine []time.Duration
			offsets := map[string]int64{}
			for i := 0; ctx.Err() == nil; i++ {
				part := fmt.Sprintf("p-%d", (c*7919+i)%o.partitions)
				body, path := pushBody(o, c, i, payload), "/api/v1/push"
				if o.mode == "fetch" {
					body, path = fetchBody(o, part, offsets[part]), "/api/v1/fetch"
				}
				t0 := time.Now()
				n, err := do(ctx, client, url+path, body, o.mode)
				if ctx.Err() != nil {
					break
				}
				mine = append(mine, time.Since(t0))
				requests.Add(1)
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				offsets[part] += int64(n)
				if records.Add(int64(n)) >= o.count && o.count > 0 {
					cancel()
				}
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

func pushBody(o options, c, i int, payload string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"items":[`)
	for j := 0; j < o.batch; j++ {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"queue":%q,"partition":"p-%d","transactionId":"qb-%d-%d-%d-%d","payload":%s}`,
			o.queue, (c*7919+i+j)%o.partitions, time.Now().UnixNano(), c, i, j, payload)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

func fetchBody(o options, part string, offset int64) []byte {
	b, _ := json.Marshal(map[string]any{"entries": []map[string]any{
		{"queue": o.queue, "partition": part, "offset": offset, "maxBytes": o.batch * o.size}}})
	return b
}

// do sends one request and returns how many records it moved.
func do(ctx context.Context, client *http.Client, url string, body []byte, mode string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("content-type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode >= 300 {
		return 0, fmt.Errorf("%s answered %d: %.200s", url, resp.StatusCode, raw)
	}
	if mode == "push" {
		var out []json.RawMessage
		err := json.Unmarshal(raw, &out)
		return len(out), err
	}
	var out struct {
		Entries []struct {
			Records []json.RawMessage `json:"records"`
			Error   string            `json:"error"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Entries) != 1 {
		return 0, fmt.Errorf("fetch answered %.200s", raw)
	}
	if e := out.Entries[0].Error; e != "" && e != "UNKNOWN_TOPIC_OR_PARTITION" {
		return 0, fmt.Errorf("fetch: %s", e)
	}
	return len(out.Entries[0].Records), nil
}

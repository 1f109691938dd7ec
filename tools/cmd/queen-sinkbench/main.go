// Command queen-sinkbench measures the embedded S3 sink of a running
// broker. In -phase load it pushes -records records over -queues queues of
// -partitions partitions (batches of 100, -conns connections) and prints
// the stamp of the last one; in -phase drain, against a broker whose sink
// starts at the earliest record, it waits until every queue's lake is
// complete through that stamp and prints the sink's throughput and the lag
// it showed meanwhile.
//
//	queen-sinkbench -url http://127.0.0.1:6632 -phase load -records 1000000
//	queen-sinkbench -url http://127.0.0.1:6632 -phase drain -through 2026-11-29T23:59:59.000000Z -records 1000000
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/queen-mq/queen-go/tools/internal/progress"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:6632", "the broker")
	phase := flag.String("phase", "load", "load, drain, or live (load with the sink on, then drain)")
	records := flag.Int("records", 1_000_000, "records to push (load) or that were pushed (drain)")
	queues := flag.Int("queues", 10, "queues q0..q<n-1>")
	partitions := flag.Int("partitions", 50, "partitions per queue")
	size := flag.Int("size", 150, "payload bytes, about")
	conns := flag.Int("conns", 16, "concurrent push connections")
	through := flag.String("through", "", "drain: the stamp of the last record pushed (ISO)")
	flag.Parse()
	var err error
	switch *phase {
	case "load":
		err = load(*url, *records, *queues, *partitions, *size, *conns)
	case "drain":
		err = drain(*url, *records, *queues, *size, *through)
	case "live":
		err = live(*url, *records, *queues, *partitions, *size, *conns)
	default:
		err = fmt.Errorf("-phase is load or drain, not %q", *phase)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "queen-sinkbench:", err)
		os.Exit(1)
	}
}

func post(url string, body any, out any) error {
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s: %d %.200s", url, resp.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}

// load pushes the records and prints the greatest stamp the pushes got.
func load(url string, records, queues, partitions, size, conns int) error {
	through, err := pushAll(url, records, queues, partitions, size, conns)
	if err != nil {
		return err
	}
	fmt.Println(through)
	return nil
}

// pushAll pushes the records and returns the broker's safeTime after the
// last push: at or after every pushed record's stamp.
func pushAll(url string, records, queues, partitions, size, conns int) (string, error) {
	var next, pushed atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Value
	start := time.Now()
	var meter progress.Meter
	stopLine := progress.Stderr().Every(func() string {
		n := pushed.Load()
		return fmt.Sprintf("queen-sinkbench: pushed %d of %d records, %s, %.0f records/s", n, records,
			time.Since(start).Truncate(100*time.Millisecond), meter.Rate(float64(n), time.Now()))
	})
	for c := 0; c < conns; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				from := next.Add(100) - 100
				if from >= int64(records) || firstErr.Load() != nil {
					return
				}
				var items []map[string]any
				for i := from; i < min(from+100, int64(records)); i++ {
					payload := payloadOf(i, size)
					items = append(items, map[string]any{"queue": fmt.Sprintf("q%d", i%int64(queues)),
						"partition": fmt.Sprintf("p-%d", (i/int64(queues))%int64(partitions)), "transactionId": fmt.Sprintf("sb-%d", i),
						"payload": json.RawMessage(payload)})
				}
				var out []map[string]any
				for attempt := 0; ; attempt++ {
					err := post(url+"/api/v1/push", map[string]any{"items": items}, &out)
					if err == nil {
						pushed.Add(int64(len(items)))
						break
					}
					if attempt == 20 {
						firstErr.CompareAndSwap(nil, err)
						return
					}
					time.Sleep(100 * time.Millisecond) // back off before the retry
				}
			}
		}()
	}
	wg.Wait()
	stopLine()
	if e := firstErr.Load(); e != nil {
		return "", e.(error)
	}
	// The last stamp: what partitions/changed reports as safeTime now is at
	// or after every push's.
	var ch struct {
		SafeTime string `json:"safeTime"`
	}
	if err := post(url+"/api/v1/partitions/changed", map[string]any{"entries": []any{}}, &ch); err != nil {
		return "", err
	}
	el := time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "pushed %d records in %.1fs (%.0f records/s)\n", records, el, float64(records)/el)
	return ch.SafeTime, nil
}

// drain waits until every queue's lake is complete through the stamp and
// reports the sink's rate and the greatest lag it showed.
func drain(url string, records, queues, size int, through string) error {
	return drainFrom(url, records, queues, size, through, time.Now(), "")
}

// drainFrom is drain timed from start; its result line starts with
// prefix.
func drainFrom(url string, records, queues, size int, through string, start time.Time, prefix string) error {
	maxLag := 0.0
	line := progress.Stderr()
	defer line.Clear()
	for {
		resp, err := http.Get(url + "/status")
		if err != nil {
			return err
		}
		var st struct {
			S3 struct {
				Sinks []struct {
					Queues []struct {
						Name            string   `json:"name"`
						CompleteThrough *string  `json:"completeThrough"`
						LagSeconds      *float64 `json:"lagSeconds"`
						Records         int64    `json:"records"`
						Bytes           int64    `json:"bytes"`
					} `json:"queues"`
				} `json:"sinks"`
			} `json:"s3"`
		}
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if err != nil || len(st.S3.Sinks) == 0 {
			return fmt.Errorf("/status has no s3 block: %v", err)
		}
		done, recs, bytes := 0, int64(0), int64(0)
		for _, q := range st.S3.Sinks[0].Queues {
			if q.LagSeconds != nil {
				maxLag = max(maxLag, *q.LagSeconds)
			}
			if q.CompleteThrough != nil && *q.CompleteThrough > through {
				done++
			}
			recs += q.Records
			bytes += q.Bytes
		}
		line.Printf("queen-sinkbench: %d of %d queues complete, %d records (%s) in the lake, %s, greatest lag %.1fs",
			done, queues, recs, progress.Bytes(bytes), time.Since(start).Truncate(100*time.Millisecond), maxLag)
		if done == queues {
			line.Clear()
			el := time.Since(start).Seconds()
			var payload int
			for i := 0; i < records; i++ {
				payload += len(payloadOf(int64(i), size))
			}
			fmt.Printf(prefix+"sink drained %d records (%d in the lake, %.1f MB of objects) in %.1fs: %.0f records/s, %.1f MB/s of payload; greatest lag %.1fs\n",
				records, recs, float64(bytes)/1e6, el, float64(records)/el, float64(payload)/el/1e6, maxLag)
			return nil
		}
		time.Sleep(500 * time.Millisecond) // the status block is the sink's only window
	}
}

// payloadOf is record i's payload, about size bytes.
func payloadOf(i int64, size int) string {
	return fmt.Sprintf(`{"order":%d,"customer":"cust-%d","total":%d.%02d,"note":"%s"}`, i, i%997, i%1000, i%100,
		strings.Repeat("x", max(size-60, 0)))
}

// live pushes with the sink running, sampling the greatest lag the sink
// shows while the load runs, then waits for the lake to be complete.
func live(url string, records, queues, partitions, size, conns int) error {
	stop := make(chan struct{})
	lagCh := make(chan float64)
	go func() {
		most := 0.0
		for {
			select {
			case <-stop:
				lagCh <- most
				return
			case <-time.After(500 * time.Millisecond): // sample the status block
			}
			if l, err := greatestLag(url); err == nil {
				most = max(most, l)
			}
		}
	}()
	start := time.Now()
	through, err := pushAll(url, records, queues, partitions, size, conns)
	close(stop)
	most := <-lagCh
	if err != nil {
		return err
	}
	fmt.Printf("while the load ran: greatest lag %.1fs\n", most)
	return drainFrom(url, records, queues, size, through, start, "push to committed: ")
}

// greatestLag reads the greatest lagSeconds of the sink's queues.
func greatestLag(url string) (float64, error) {
	resp, err := http.Get(url + "/status")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var st struct {
		S3 struct {
			Sinks []struct {
				Queues []struct {
					LagSeconds *float64 `json:"lagSeconds"`
				} `json:"queues"`
			} `json:"sinks"`
		} `json:"s3"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || len(st.S3.Sinks) == 0 {
		return 0, fmt.Errorf("no s3 block")
	}
	most := 0.0
	for _, q := range st.S3.Sinks[0].Queues {
		if q.LagSeconds != nil {
			most = max(most, *q.LagSeconds)
		}
	}
	return most, nil
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// parked is what -parked adds to -mode push: pops parked on partitions no
// push touches, and what the broker spent while they waited.
type parked struct {
	stop    context.CancelFunc
	wg      sync.WaitGroup
	answers atomic.Int64 // pops answered, 204s included
	errs    atomic.Int64
	before  []nodeCounters
}

// nodeCounters are a node's raft entries applied and its CPU seconds.
type nodeCounters struct {
	applied float64
	cpu     float64
}

// startParked parks n pops (consumer group -group, wait=true,
// timeout=30000) on partitions parked-0..parked-n-1 of -queue, spread over
// the nodes, each parked again when it is answered, and reads the nodes'
// counters before the clock.
func startParked(o options, n int) (*parked, error) {
	p := &parked{}
	ctx, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	client := newClient(n)
	for i := range n {
		route := "/api/v1/pop/queue/" + url.PathEscape(o.queue) + "/partition/parked-" + strconv.Itoa(i)
		q := url.Values{"consumerGroup": {o.group}, "batch": {"1"}, "wait": {"true"}, "timeout": {"30000"}, "subscriptionMode": {"all"}}
		path := route + "?" + q.Encode()
		base := o.urls[i%len(o.urls)]
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for ctx.Err() == nil {
				_, _, err := pop(ctx, client, base, path)
				if ctx.Err() != nil {
					return
				}
				p.answers.Add(1)
				if err != nil {
					p.errs.Add(1)
					time.Sleep(100 * time.Millisecond)
				}
			}
		}()
	}
	if n > 0 {
		time.Sleep(time.Second) // the pops reach the broker and park: HTTP says nothing of it
	}
	p.answers.Store(0)
	var err error
	p.before, err = counters(o)
	return p, err
}

// finish stops the pops and adds the broker's figures over the run to r.
func (p *parked) finish(o options, r *report) error {
	after, err := counters(o)
	p.stop()
	p.wg.Wait()
	if err != nil {
		return err
	}
	s := r.elapsed.Seconds()
	var applied, cpu float64
	for i := range after {
		applied = max(applied, after[i].applied-p.before[i].applied) // every node applies every entry
		cpu += after[i].cpu - p.before[i].cpu
	}
	r.notes = append(r.notes,
		fmt.Sprintf("parked pops %d  answered during the run %d  errors %d", o.parked, p.answers.Load(), p.errs.Load()),
		fmt.Sprintf("raft entries applied/s %.0f  broker CPU s/s %.2f (all nodes)  CPU µs/record %.1f", applied/s, cpu/s,
			cpu*1e6/max(float64(r.records), 1)))
	return nil
}

// counters reads every node's applied index (GET /health) and CPU seconds
// (process_cpu_seconds_total of /metrics/prometheus).
func counters(o options) ([]nodeCounters, error) {
	client := newClient(2)
	out := make([]nodeCounters, len(o.urls))
	for i, u := range o.urls {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		a, err := send(ctx, client, u+"/health", nil)
		// A node that trails the leader past its ready lag answers 503
		// settling, with its applied index all the same: under a heavy
		// load a follower often does at the end of a run.
		if err != nil && (a.status != http.StatusServiceUnavailable || len(a.body) == 0) {
			cancel()
			return nil, err
		}
		var h struct {
			Raft struct {
				Applied float64 `json:"applied"`
			} `json:"raft"`
		}
		if err := json.Unmarshal(a.body, &h); err != nil {
			cancel()
			return nil, fmt.Errorf("%s/health: %w", u, err)
		}
		m, err := send(ctx, client, u+"/metrics/prometheus", nil)
		cancel()
		if err != nil {
			return nil, err
		}
		out[i] = nodeCounters{applied: h.Raft.Applied, cpu: metric(string(m.body), "process_cpu_seconds_total")}
	}
	return out, nil
}

// metric reads an unlabelled series of a Prometheus text exposition.
func metric(text, name string) float64 {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f
		}
	}
	return 0
}

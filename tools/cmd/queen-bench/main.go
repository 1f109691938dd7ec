// Command queen-bench loads a running Queen broker over HTTP, spread over
// the -url nodes, and prints records/s and latency percentiles. Its modes:
//
//   - push: -c connections each push batches of -batch records of -size
//     bytes for -duration or until -count records (push.go); the report
//     adds the raft entries applied and the broker's CPU seconds; with
//     -parked N, N pops wait the whole run on partitions no push touches
//     (parked.go): what parked pops cost a push load. -body binary or frames
//     sends the client's binary push instead of JSON (push_binary.go).
//   - txn: as push, each request a transaction of one push operation of
//     -batch records; -body frames sends the client's binary transaction
//     (QTB1, txn.go).
//   - fetch: the same connections read them back by offset, maxBytes of
//     -batch records of -size (fetch.go).
//   - consume: before the clock starts, -prefill records are pushed over
//     -partitions partitions; then -c consumers each loop pop (consumer
//     group -group, batch -batch) and ack/batch of what they leased, until
//     -duration or until every prefilled record is acked; latency is the
//     pop+ack round trip of a batch (consume.go); -body frames asks for
//     framed pops (frames=true) and reads them as the client does.
//   - longpoll: -c pairs, each a pop parked on a partition of its own and
//     then a push of one record to it; latency is from the push's answer to
//     the parked pop's answer (longpoll.go).
//   - locks: -c connections each loop an acquire and a release of a lock
//     name of their own, or with -shared all of one name; pairs/s and the
//     latency of a pair (locks.go).
//   - timers: -timers timers scheduled in calls of -batch (at most 256),
//     due -delay from the start and spread over -spread, then read back
//     from the queue as they fire: timers fired/s over the firing window
//     and the fire delay past deliverAt (timers.go).
//   - kvput: -c connections each put a value of -size bytes to one of -keys
//     keys of namespace -queue, one write per call, until -duration
//     (kv.go).
//   - kvget: the -keys keys are put before the clock starts; then -c
//     connections each read one of them per call (a linearizable GET)
//     until -duration (kv.go).
//
// For example:
//
//	queen-bench -url http://127.0.0.1:6632 -c 64 -batch 100 -size 200 -duration 10s
//	queen-bench -url http://10.0.0.1:6632,http://10.0.0.2:6632 -mode fetch -c 16
//	queen-bench -mode consume -c 16 -batch 100 -prefill 100000 -queue c1
//	queen-bench -mode longpoll -c 8 -duration 10s -queue lp1
//	queen-bench -mode locks -c 16 -duration 10s -shared
//	queen-bench -mode timers -timers 10000 -delay 2s -spread 2s -queue t1
//	queen-bench -mode kvput -c 64 -size 200 -keys 10000 -duration 10s
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/httpd/client"
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
	group      string
	prefill    int
	parked     int
	shared     bool
	timers     int
	delay      time.Duration
	spread     time.Duration
	wait       time.Duration
	body       string
	keys       int
}

// maxPopBatch is the broker's cap on a pop's batch and on the items of an
// ack/batch (API.md §2).
const maxPopBatch = 10000

// maxTimerOps is the broker's cap on the operations of a timers call
// (API.md §7).
const maxTimerOps = 256

func main() {
	var o options
	urls := flag.String("url", "http://127.0.0.1:6632", "broker URLs, comma-separated; connections spread over them")
	flag.IntVar(&o.conns, "c", 64, "concurrent connections (consume: consumers; longpoll: pairs of a pop and a push; timers: scheduling)")
	flag.IntVar(&o.batch, "batch", 1, "records per push (fetch: maxBytes in records of -size; consume: records per pop; timers: timers per call, default 256)")
	flag.IntVar(&o.size, "size", 200, "payload bytes per record, about")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long to run (not timers: it runs until every timer fired)")
	flag.Int64Var(&o.count, "count", 0, "push, fetch: stop after this many records instead (0: run for -duration)")
	flag.StringVar(&o.mode, "mode", "push", "push, fetch, consume, longpoll, locks, timers, kvput or kvget")
	flag.StringVar(&o.queue, "queue", "bench", "queue to use (locks: the lock names start with it; kvput, kvget: the KV namespace)")
	flag.IntVar(&o.partitions, "partitions", 100, "partitions the load spreads over (not longpoll: one partition per pair)")
	flag.StringVar(&o.group, "group", "bench", "consume, longpoll: the consumer group")
	flag.IntVar(&o.prefill, "prefill", 100000, "consume: records pushed before the clock starts")
	flag.IntVar(&o.parked, "parked", 0, "push: pops parked the whole run on partitions no push touches")
	flag.BoolVar(&o.shared, "shared", false, "locks: every connection on one lock name (contention) instead of a name each")
	flag.IntVar(&o.timers, "timers", 10000, "timers: how many to schedule")
	flag.DurationVar(&o.delay, "delay", 2*time.Second, "timers: the first timer is due this long after the start")
	flag.DurationVar(&o.spread, "spread", 0, "timers: the timers are due evenly over this window after -delay (0: all at once)")
	flag.DurationVar(&o.wait, "wait", time.Minute, "timers: how long past the last deliverAt to wait for the fires")
	flag.StringVar(&o.body, "body", bodyJSON, "push: the request body, json, binary (the client's binary_push) or frames (binary_push with push_compression), binary and frames asking for the counts-only answer; txn: json or frames (the binary transaction); consume: json or frames (framed pops, frames=true)")
	flag.IntVar(&o.keys, "keys", 10000, "kvput, kvget: how many keys the calls spread over")
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if o.mode == "timers" && !set["batch"] {
		o.batch = maxTimerOps
	}
	if flag.NArg() > 0 {
		fail(2, fmt.Errorf("unexpected arguments %q: every setting is a flag", flag.Args()))
	}
	var err error
	if o.urls, err = parseURLs(*urls); err != nil {
		fail(2, err)
	}
	if err := o.check(set); err != nil {
		fail(2, err)
	}
	var r *report
	stopProgress := startProgress(o)
	switch o.mode {
	case "consume":
		r, err = runConsume(o)
	case "longpoll":
		r, err = runLongpoll(o)
	case "locks":
		r, err = runLocks(o)
	case "timers":
		r, err = runTimers(o)
	case "kvput", "kvget":
		r, err = runKV(o)
	default:
		var p *parked
		if o.mode == "push" {
			if p, err = startParked(o, o.parked); err != nil {
				stopProgress()
				fail(1, err)
			}
		}
		r, err = runLoad(o)
		if err == nil && p != nil {
			err = p.finish(o, r)
		}
	}
	stopProgress()
	if err != nil {
		fail(1, err)
	}
	fmt.Print(r.String(o))
}

func fail(code int, err error) {
	fmt.Fprintln(os.Stderr, "queen-bench:", err)
	os.Exit(code)
}

// parseURLs splits the -url list; each must be an http(s) URL of a host.
func parseURLs(list string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimRight(strings.TrimSpace(s), "/")
		u, err := url.Parse(s)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			return nil, fmt.Errorf("-url %q: want http://host:port, comma-separated", s)
		}
		out = append(out, s)
	}
	return out, nil
}

// modeFlags lists the flags that only some modes read; giving one to
// another mode is refused rather than silently ignored.
var modeFlags = map[string][]string{
	"count":      {"push", "fetch", "txn"},
	"batch":      {"push", "fetch", "consume", "timers", "txn"},
	"duration":   {"push", "fetch", "consume", "longpoll", "locks", "kvput", "kvget", "txn"},
	"partitions": {"push", "fetch", "consume", "txn"},
	"group":      {"consume", "longpoll"},
	"prefill":    {"consume"},
	"parked":     {"push"},
	"body":       {"push", "txn", "consume"},
	"shared":     {"locks"},
	"timers":     {"timers"},
	"delay":      {"timers"},
	"spread":     {"timers"},
	"wait":       {"timers"},
	"keys":       {"kvput", "kvget"},
}

var allModes = []string{"push", "fetch", "consume", "longpoll", "locks", "timers", "kvput", "kvget", "txn"}

// check validates o; set holds the flags given on the command line.
func (o *options) check(set map[string]bool) error {
	if !slices.Contains(allModes, o.mode) {
		return fmt.Errorf("-mode %q: want push, fetch, consume, longpoll, locks, timers, kvput, kvget or txn", o.mode)
	}
	for name, modes := range modeFlags {
		if set[name] && !slices.Contains(modes, o.mode) {
			return fmt.Errorf("-%s does not apply to -mode %s (only to %s)", name, o.mode, strings.Join(modes, ", "))
		}
	}
	if !slices.Contains(bodies, o.body) {
		return fmt.Errorf("-body %q: want json, binary or frames", o.body)
	}
	if o.body == bodyBinary && o.mode != "push" {
		return fmt.Errorf("-body binary is a push body: -mode %s takes json or frames", o.mode)
	}
	switch {
	case o.conns < 1 || o.batch < 1 || o.partitions < 1:
		return errors.New("-c, -batch and -partitions must be 1 or more")
	case o.size < 0 || o.count < 0:
		return errors.New("-size and -count must not be negative")
	case o.duration <= 0:
		return fmt.Errorf("-duration %s must be positive", o.duration)
	case o.queue == "":
		return errors.New("-queue must not be empty")
	case o.mode == "consume" && o.batch > maxPopBatch:
		return fmt.Errorf("-batch %d: a pop leases at most %d records", o.batch, maxPopBatch)
	case o.mode == "consume" && o.prefill < 1:
		return fmt.Errorf("-prefill %d must be 1 or more", o.prefill)
	case (o.mode == "consume" || o.mode == "longpoll") && o.group == "":
		return errors.New("-group must not be empty")
	case o.mode == "timers" && o.batch > maxTimerOps:
		return fmt.Errorf("-batch %d: a timers call holds at most %d operations", o.batch, maxTimerOps)
	case o.timers < 1 || o.delay < 0 || o.spread < 0 || o.wait <= 0:
		return errors.New("-timers must be 1 or more, -delay and -spread not negative, -wait positive")
	case o.keys < 1:
		return errors.New("-keys must be 1 or more")
	case (o.mode == "kvput" || o.mode == "kvget") && o.size > maxKVValue:
		return fmt.Errorf("-size %d: a KV value holds at most %d bytes", o.size, maxKVValue)
	}
	return nil
}

// report is what a run measured. requests counts HTTP requests; empty the
// pops answered 204 (longpoll: parked pops that timed out though a record
// was pushed; locks: acquires refused); figures, when set, are printed
// in place of the rate and latency lines; notes are extra lines printed
// after the figures.
type report struct {
	records, requests, errors, empty int64
	elapsed                          time.Duration
	lat                              []time.Duration
	figures                          []string
	notes                            []string
}

func (r *report) String(o options) string {
	s := r.elapsed.Seconds()
	var b strings.Builder
	switch o.mode {
	case "consume":
		fmt.Fprintf(&b, "mode consume, %d consumers, %d records/pop, %d bytes, %d nodes, group %s, %.1fs\n",
			o.conns, o.batch, o.size, len(o.urls), o.group, s)
	case "longpoll":
		fmt.Fprintf(&b, "mode longpoll, %d pairs, 1 record/push, %d bytes, %d nodes, group %s, %.1fs\n",
			o.conns, o.size, len(o.urls), o.group, s)
	case "locks":
		names := "a lock name each"
		if o.shared {
			names = "one shared lock name"
		}
		fmt.Fprintf(&b, "mode locks, %d connections, %s, %d nodes, %.1fs\n", o.conns, names, len(o.urls), s)
		fmt.Fprintf(&b, "pairs/s %.0f  requests/s %.0f  errors %d\n", float64(r.records)/s, float64(r.requests)/s, r.errors)
		fmt.Fprintf(&b, "pairs %d  refused acquires %d\n", r.records, r.empty)
	case "timers":
		fmt.Fprintf(&b, "mode timers, %d timers, %d per call, %d connections, delay %s spread %s, %d bytes, %d nodes\n",
			o.timers, o.batch, o.conns, o.delay, o.spread, o.size, len(o.urls))
	case "kvput", "kvget":
		fmt.Fprintf(&b, "mode %s, %d connections, 1 key/request, %d bytes, %d keys, namespace %s, %d nodes, %.1fs\n",
			o.mode, o.conns, o.size, o.keys, o.queue, len(o.urls), s)
	default:
		fmt.Fprintf(&b, "mode %s, %d connections, %d records/request, %d bytes, %d nodes, %.1fs\n",
			o.mode, o.conns, o.batch, o.size, len(o.urls), s)
	}
	if o.mode != "locks" && r.figures == nil {
		fmt.Fprintf(&b, "records/s %.0f  requests/s %.0f  errors %d\n", float64(r.records)/s, float64(r.requests)/s, r.errors)
	}
	switch o.mode {
	case "consume":
		fmt.Fprintf(&b, "records %d  empty pops %d\n", r.records, r.empty)
	case "longpoll":
		fmt.Fprintf(&b, "records %d  timed-out pops %d\n", r.records, r.empty)
	}
	if r.figures == nil {
		b.WriteString("latency ms " + percentiles(r.lat) + "\n")
	}
	for _, n := range append(r.figures, r.notes...) {
		b.WriteString(n + "\n")
	}
	return b.String()
}

// percentiles renders p50, p90, p99 and max of lat in milliseconds; it
// sorts lat.
func percentiles(lat []time.Duration) string {
	slices.Sort(lat)
	pct := func(p int) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)*p/100, len(lat)-1)]) / 1e6
	}
	return fmt.Sprintf("p50 %.2f  p90 %.2f  p99 %.2f  max %.2f", pct(50), pct(90), pct(99), pct(100))
}

// newClient returns a client that keeps up to conns connections to each
// node open.
func newClient(conns int) *http.Client {
	return &http.Client{Transport: countingTransport{&http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}}, Timeout: 60 * time.Second}
}

// answer is a broker's answer: its status, its body, and when its header
// arrived.
type answer struct {
	status int
	body   []byte
	at     time.Time
}

// send makes one request (a POST of body, or a GET when body is nil) and
// reads the whole answer. Any status of 300 or more is an error.
func send(ctx context.Context, client *http.Client, url string, body []byte) (answer, error) {
	method := http.MethodGet
	if body != nil {
		method = http.MethodPost
	}
	return sendMethod(ctx, client, method, url, body)
}

// sendMethod is send with the method given (a body is sent when not nil).
func sendMethod(ctx context.Context, hc *http.Client, method, url string, body []byte) (answer, error) {
	resp, raw, err := (&client.Client{HTTP: hc}).Do(ctx, method, url, body, nil) // url is whole: no Base
	if resp == nil {
		return answer{}, err
	}
	a := answer{status: resp.StatusCode, at: time.Now(), body: raw}
	if err != nil {
		return a, err
	}
	if a.status >= 300 {
		return a, fmt.Errorf("%s %s answered %d: %.200s", method, url, a.status, a.body)
	}
	return a, nil
}

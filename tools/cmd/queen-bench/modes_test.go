package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/tools/internal/progress"
)

// TestScheduleBody checks that timer i is due -delay plus i/-timers of
// -spread after the start, as a delayMs from the call's sending, never
// negative.
func TestScheduleBody(t *testing.T) {
	o := options{queue: "q", timers: 4, delay: time.Second, spread: 2 * time.Second}
	start := time.Unix(100, 0)
	var body struct {
		Operations []struct {
			TimerKey string `json:"timerKey"`
			Txn      string `json:"txn"`
			DelayMs  int64  `json:"delayMs"`
		} `json:"operations"`
	}
	if err := json.Unmarshal(scheduleBody(o, "p-", "e30=", start, start.Add(1500*time.Millisecond), 0, 4), &body); err != nil {
		t.Fatal(err)
	}
	want := []int64{0, 0, 500, 1000} // due at 1 s, 1.5 s, 2 s, 2.5 s; sent at 1.5 s
	for i, op := range body.Operations {
		if op.DelayMs != want[i] || op.Txn != "p-"+string(rune('0'+i)) || !strings.HasPrefix(op.TimerKey, "p-k") {
			t.Errorf("op %d: %+v, want delayMs %d", i, op, want[i])
		}
	}
	if len(body.Operations) != 4 {
		t.Fatalf("%d operations, want 4", len(body.Operations))
	}
}

// TestCheckModes checks the new modes' flags are refused elsewhere and
// their bounds kept.
func TestCheckModes(t *testing.T) {
	base := options{conns: 1, batch: 1, partitions: 1, duration: time.Second, queue: "q", group: "g", prefill: 1,
		timers: 1, wait: time.Second, body: bodyJSON, keys: 1}
	for _, c := range []struct {
		mode, flag string
		edit       func(*options)
		ok         bool
	}{
		{"locks", "shared", nil, true},
		{"push", "shared", nil, false},
		{"timers", "duration", nil, false},
		{"timers", "batch", func(o *options) { o.batch = 257 }, false},
		{"timers", "batch", func(o *options) { o.batch = 256 }, true},
		{"timers", "timers", func(o *options) { o.timers = 0 }, false},
		{"kvput", "keys", nil, true},
		{"kvget", "duration", nil, true},
		{"push", "keys", nil, false},
		{"kvput", "batch", nil, false},
		{"kvget", "keys", func(o *options) { o.keys = 0 }, false},
		{"kvput", "size", func(o *options) { o.size = maxKVValue + 1 }, false},
	} {
		o := base
		o.mode = c.mode
		if c.edit != nil {
			c.edit(&o)
		}
		if err := o.check(map[string]bool{c.flag: true}); (err == nil) != c.ok {
			t.Errorf("-mode %s -%s: %v, want ok %v", c.mode, c.flag, err, c.ok)
		}
	}
}

// fakeKV is the KV routes of a broker, in memory: POST /api/v1/kv of puts,
// PUT and GET /api/v1/kv/:ns/:key.
type fakeKV struct {
	mu   sync.Mutex
	rows map[string]json.RawMessage
	puts int
}

func (f *fakeKV) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/kv":
		var in struct {
			Operations []struct {
				Op, NS, Key string
				Value       json.RawMessage
			}
		}
		if json.Unmarshal(body, &in) != nil || len(in.Operations) > maxKVOps {
			http.Error(w, "bad call", http.StatusBadRequest)
			return
		}
		var res []string
		for _, op := range in.Operations {
			f.rows[op.NS+"/"+op.Key] = op.Value
			res = append(res, `{"op":"put","applied":true}`)
		}
		io.WriteString(w, `{"results":[`+strings.Join(res, ",")+`]}`)
	case strings.HasPrefix(r.URL.Path, "/api/v1/kv/"):
		key := strings.TrimPrefix(r.URL.Path, "/api/v1/kv/")
		if r.Method == http.MethodPut {
			var in struct {
				Value   json.RawMessage
				Forever bool
			}
			if json.Unmarshal(body, &in) != nil || !in.Forever || len(in.Value) == 0 {
				http.Error(w, "bad put", http.StatusBadRequest)
				return
			}
			f.rows[key] = in.Value
			f.puts++
			io.WriteString(w, `{"op":"put","applied":true,"version":1}`)
			return
		}
		if _, ok := f.rows[key]; !ok {
			io.WriteString(w, `{"op":"get","found":false}`)
			return
		}
		io.WriteString(w, `{"op":"get","found":true,"value":`+string(f.rows[key])+`}`)
	default:
		http.NotFound(w, r)
	}
}

// TestKVModes runs kvput and kvget against the fake: kvget finds every key
// it reads, since it puts them all before the clock starts, and both
// count their calls as records.
func TestKVModes(t *testing.T) {
	f := &fakeKV{rows: map[string]json.RawMessage{}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	o := options{urls: []string{srv.URL}, conns: 4, size: 50, duration: 200 * time.Millisecond, queue: "ns", keys: 600}
	for _, mode := range []string{"kvput", "kvget"} {
		o.mode = mode
		r, err := runKV(o)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if r.records == 0 || r.errors != 0 || r.records != r.requests {
			t.Errorf("%s: %d records, %d requests, %d errors", mode, r.records, r.requests, r.errors)
		}
		if !strings.Contains(r.String(o), "records/s ") || !strings.Contains(r.String(o), "latency ms p50 ") {
			t.Errorf("%s: the report lacks the lines the bench scripts read:\n%s", mode, r.String(o))
		}
	}
	if len(f.rows) != 600 {
		t.Errorf("%d keys stored after the runs, want all 600", len(f.rows))
	}
	// a get of a key nobody put is an error, not a record
	if err := kvGet(t.Context(), newClient(1), srv.URL+"/api/v1/kv/ns/absent"); err == nil {
		t.Error("a get of an absent key answered no error")
	}
}

func TestProgressText(t *testing.T) {
	var m progress.Meter
	t0 := time.Unix(0, 0)
	o := options{mode: "push", batch: 10, count: 95, duration: 10 * time.Second}
	progressText(o, 0, 0, &m, t0)
	if got := progressText(o, 1500*time.Millisecond, 4, &m, t0.Add(2*time.Second)); got != "queen-bench push: 4 of 10 requests, 1.5s, 2 requests/s" {
		t.Errorf("push -count: %q", got)
	}
	o = options{mode: "consume", duration: 10 * time.Second}
	if got := progressText(o, 3*time.Second, 9, &m, t0.Add(3*time.Second)); got != "queen-bench consume: 3s of 10s, 9 requests, 5 requests/s" {
		t.Errorf("consume: %q", got)
	}
}

func TestClientCountsAnsweredRequests(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	before := requestsDone.Load()
	c := newClient(1)
	for range 3 {
		if _, err := send(t.Context(), c, srv.URL, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := send(t.Context(), c, "http://127.0.0.1:1", nil); err == nil {
		t.Fatal("a request to a closed port answered")
	}
	if got := requestsDone.Load() - before; got != 3 {
		t.Fatalf("%d requests counted, want the 3 answered", got)
	}
}

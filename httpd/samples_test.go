package httpd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// sampledEnv is an env whose registry also has a process CPU counter and
// a goroutine gauge the test moves, and a Sampler of 3 samples every 10 s
// over it. Samples are taken by the test, at the times it chooses.
func sampledEnv(t *testing.T, fb *fakeBroker) (*env, *Sampler, prometheus.Counter) {
	t.Helper()
	reg := prometheus.NewRegistry()
	cpu := prometheus.NewCounter(prometheus.CounterOpts{Name: "process_cpu_seconds_total", Help: "test"})
	gor := prometheus.NewGauge(prometheus.GaugeOpts{Name: "go_goroutines", Help: "test"})
	gor.Set(42)
	reg.MustRegister(cpu, gor)
	smp := NewSampler(reg, 10*time.Second, 3)
	return newEnv(t, fb, Options{Registry: reg, Sampler: smp}), smp, cpu
}

var t0 = time.UnixMicro(stampA)

func TestAnalyticsSeries(t *testing.T) {
	e, smp, cpu := sampledEnv(t, statsBroker())
	smp.Sample(t0)
	e.do(t, "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1},{"queue":"q","payload":2}]}`)
	e.do(t, "GET", "/api/v1/nothing", "")
	cpu.Add(5)
	smp.Sample(t0.Add(10 * time.Second))

	var sys struct {
		Interval   float64       `json:"interval"`
		Current    systemPoint   `json:"current"`
		TimeSeries []systemPoint `json:"timeSeries"`
	}
	decode(t, e.do(t, "GET", "/api/v1/analytics/system-metrics", ""), &sys)
	if sys.Interval != 10 || len(sys.TimeSeries) != 1 {
		t.Fatalf("system metrics: %+v", sys)
	}
	p := sys.TimeSeries[0]
	if p.Timestamp != "2025-09-22T10:15:10.000000Z" || p.CPU.Seconds == nil || *p.CPU.Seconds != 5 || p.CPU.Percent == nil ||
		*p.CPU.Percent != 50 || p.Goroutines == nil || *p.Goroutines != 42 || p.Memory.RSSBytes != nil {
		t.Fatalf("system point: %+v", p)
	}
	if sys.Current.CPU.Seconds == nil || *sys.Current.CPU.Seconds != 5 {
		t.Fatalf("current: %+v", sys.Current)
	}

	// Between the samples: the push (201) and the unknown route (404).
	var wk struct {
		TimeSeries []workerPoint `json:"timeSeries"`
	}
	decode(t, e.do(t, "GET", "/api/v1/analytics/worker-metrics", ""), &wk)
	if len(wk.TimeSeries) != 1 || wk.TimeSeries[0].Requests != 2 || wk.TimeSeries[0].ClientErrors != 1 ||
		wk.TimeSeries[0].ServerErrors != 0 || *wk.TimeSeries[0].RequestsPerSecond != 0.2 || wk.TimeSeries[0].AvgLatencyMs == nil {
		t.Fatalf("worker metrics: %+v", wk)
	}

	var st struct {
		Throughput throughputBlock `json:"throughput"`
	}
	decode(t, e.do(t, "GET", "/api/v1/status", ""), &st)
	tp := st.Throughput
	if tp.Interval != 10 || len(tp.TimeSeries) != 1 || tp.TimeSeries[0].Pushed != 2 || *tp.TimeSeries[0].PushedPerSecond != 0.2 ||
		tp.TimeSeries[0].Delivered != 0 || tp.Totals.Pushed != 2 {
		t.Fatalf("throughput: %+v", tp)
	}

	// from and to keep the points inside them.
	decode(t, e.do(t, "GET", "/api/v1/status/analytics?from=2025-09-22T10:15:11Z", ""), &st)
	if len(st.Throughput.TimeSeries) != 0 || st.Throughput.Totals.Pushed != 0 {
		t.Fatalf("throughput after from: %+v", st.Throughput)
	}
	decode(t, e.do(t, "GET", "/api/v1/analytics/system-metrics?to=2025-09-22T10:15:10Z", ""), &sys)
	if len(sys.TimeSeries) != 1 {
		t.Fatalf("system metrics up to to: %+v", sys)
	}
	wantError(t, e.do(t, "GET", "/api/v1/analytics/worker-metrics?to=soon", ""), 400, CodeBadRequest, "to")
}

// TestThroughputIsTheTenants: each tenant's status and analytics show
// the messages of its own calls only, and /metrics/prometheus keeps one
// series per tenant, labelled with its id (none for the default tenant).
func TestThroughputIsTheTenants(t *testing.T) {
	const a, b = "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "6ba7b811-9dad-11d1-80b4-00c04fd430c8"
	reg := prometheus.NewRegistry()
	smp := NewSampler(reg, 10*time.Second, 3)
	fb := statsBroker()
	fb.pop = func(context.Context, string, PopRequest) (PopAnswer, bool, error) {
		return PopAnswer{Queue: "q", Messages: []PopMessage{{ID: "0199718d-0000-7000-8000-000000000001"}}}, true, nil
	}
	e := newEnv(t, fb, Options{Registry: reg, Sampler: smp, TenancyHeader: true})
	smp.Sample(t0)
	e.do(t, "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1},{"queue":"q","payload":2}]}`, TenantHeader, a)
	e.do(t, "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":3}]}`)
	wantStatus(t, e.do(t, "GET", "/api/v1/pop/queue/q", "", TenantHeader, b), 200)
	smp.Sample(t0.Add(10 * time.Second))
	for _, c := range []struct {
		tenant            string
		pushed, delivered int64
	}{{a, 2, 0}, {b, 0, 1}, {DefaultTenant, 1, 0}, {"6ba7b812-9dad-11d1-80b4-00c04fd430c8", 0, 0}} {
		for _, route := range []string{"/api/v1/status", "/api/v1/status/analytics"} {
			var st struct {
				Throughput throughputBlock `json:"throughput"`
			}
			decode(t, e.do(t, "GET", route, "", TenantHeader, c.tenant), &st)
			tp := st.Throughput
			if len(tp.TimeSeries) != 1 || tp.TimeSeries[0].Pushed != c.pushed || tp.TimeSeries[0].Delivered != c.delivered ||
				tp.Totals.Pushed != c.pushed {
				t.Errorf("%s of tenant %s: %+v, want %d pushed and %d delivered", route, c.tenant, tp, c.pushed, c.delivered)
			}
		}
	}
	body := e.do(t, "GET", "/metrics/prometheus", "").Body.String()
	for _, want := range []string{`queen_messages_total{event="pushed",tenant="` + a + `"} 2`,
		`queen_messages_total{event="delivered",tenant="` + b + `"} 1`, `queen_messages_total{event="pushed",tenant=""} 1`} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s\n%s", want, body)
		}
	}
}

// TestSamplerKeepsItsSize: the ring keeps the newest samples, in time
// order, and drops a sample not later than the newest.
func TestSamplerKeepsItsSize(t *testing.T) {
	_, smp, _ := sampledEnv(t, nil)
	for i := range 5 {
		smp.Sample(t0.Add(time.Duration(i) * time.Second))
	}
	smp.Sample(t0)
	h := smp.history()
	if len(h) != 3 || h[0].At != t0.Add(2*time.Second).UnixMicro() || h[2].At != t0.Add(4*time.Second).UnixMicro() {
		t.Fatalf("history: %+v", h)
	}
}

// TestSampleReadsTheCollectors: the Go and process collectors' series
// the samples read are there under the names sample looks for.
func TestSampleReadsTheCollectors(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	x := readSample(reg, t0)
	for name, v := range map[string]*float64{"goroutines": x.Goroutines, "heap": x.HeapBytes, "sys": x.SysBytes,
		"gc count": x.GCCount, "gc pause": x.GCPauseSeconds, "cpu": x.CPUSeconds, "rss": x.RSSBytes, "fds": x.OpenFDs} {
		if v == nil {
			t.Errorf("%s: not read", name)
		}
	}
}

// TestMessagesCounted: the routes count what they did to messages in
// queen_messages_total, and GET /metrics serves the registry as
// /metrics/prometheus does.
func TestMessagesCounted(t *testing.T) {
	fb := &fakeBroker{push: func(context.Context, string, []PushItem) ([]PushResult, error) {
		return []PushResult{{Offset: 0}, {Duplicate: true}, {Error: "full"}}, nil
	}, pop: func(context.Context, string, PopRequest) (PopAnswer, bool, error) {
		return PopAnswer{Queue: "q", Messages: []PopMessage{{ID: "0199718d-0000-7000-8000-000000000001"},
			{ID: "0199718d-0000-7000-8000-000000000002"}}}, true, nil
	}}
	e := newEnv(t, fb, Options{})
	e.do(t, "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1},{"queue":"q","payload":2},{"queue":"q","payload":3}]}`)
	e.do(t, "POST", "/api/v1/ack/batch", `{"acknowledgments":[{"transactionId":"t","partitionId":"1"},
		{"transactionId":"u","partitionId":"1","status":"failed"},{"transactionId":"v","partitionId":"1","status":"dlq"}]}`)
	wantStatus(t, e.do(t, "GET", "/api/v1/pop/queue/q", ""), 200)
	e.do(t, "POST", "/api/v1/transaction", `{"operations":[{"type":"push","queue":"q","payload":1},
		{"type":"ack","transactionId":"w","partitionId":"1","status":"retry"}]}`)
	body := scrape(t, e)
	for _, want := range []string{
		`queen_messages_total{event="pushed",tenant=""} 2`,
		`queen_messages_total{event="duplicate",tenant=""} 1`,
		`queen_messages_total{event="delivered",tenant=""} 2`,
		`queen_messages_total{event="completed",tenant=""} 1`,
		`queen_messages_total{event="failed",tenant=""} 1`,
		`queen_messages_total{event="dlq",tenant=""} 1`,
		`queen_messages_total{event="retried",tenant=""} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s\n%s", want, body)
		}
	}
	// GET /metrics: the same series as JSON, what the 2.x client decodes.
	w := e.do(t, "GET", "/metrics", "")
	var js struct {
		Metrics []struct {
			Name, Type string
			Samples    []struct {
				Labels map[string]string
				Value  *float64
				Count  *uint64
			}
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &js); err != nil || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("GET /metrics: %v %q %s", err, w.Header().Get("Content-Type"), w.Body)
	}
	var pushed, histograms int
	for _, f := range js.Metrics {
		for _, s := range f.Samples {
			if f.Name == "queen_messages_total" && s.Labels["event"] == "pushed" && s.Value != nil {
				pushed = int(*s.Value)
			}
			if f.Type == "histogram" && s.Count != nil {
				histograms++
			}
		}
	}
	if pushed != 2 || histograms == 0 {
		t.Fatalf("GET /metrics: pushed %d, %d histogram samples: %s", pushed, histograms, w.Body)
	}
}

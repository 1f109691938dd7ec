package httpd

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Sampler keeps the short history of this node's metrics that the
// analytics routes answer as time series. The product keeps such series
// in its database; this broker keeps only what its own metrics say, in
// memory: every interval Run reads the Gatherer (the registry that
// /metrics/prometheus serves, Options.Registry) and keeps the last size
// samples. A restart starts with an empty history, and each node has its
// own.
type Sampler struct {
	g     prometheus.Gatherer
	every time.Duration
	size  int

	mu sync.Mutex
	// ring holds the samples, oldest first.
	// INVARIANT: len(ring) <= size, and At increases along it.
	ring []sample
}

// NewSampler samples g every interval and keeps size samples. It panics
// when interval or size is not positive (a mistake at setup).
func NewSampler(g prometheus.Gatherer, interval time.Duration, size int) *Sampler {
	if g == nil || interval <= 0 || size <= 0 {
		panic("httpd: NewSampler: nil Gatherer, or interval or size not positive")
	}
	return &Sampler{g: g, every: interval, size: size}
}

// Run samples every interval until ctx ends. A caller that wants the
// history to start when the node does takes a Sample before.
func (s *Sampler) Run(ctx context.Context) {
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			s.Sample(now)
		}
	}
}

// Sample reads the metrics once and keeps them as taken at at; a sample
// not later than the newest kept is dropped. A Gatherer error keeps
// what it did gather.
func (s *Sampler) Sample(at time.Time) {
	x := readSample(s.g, at)
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.ring); n > 0 && s.ring[n-1].At >= x.At {
		return
	}
	s.ring = append(s.ring, x)
	if len(s.ring) > s.size {
		s.ring = append(s.ring[:0:0], s.ring[len(s.ring)-s.size:]...)
	}
}

// history returns a copy of the kept samples, oldest first (none when s
// is nil).
func (s *Sampler) history() []sample {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sample(nil), s.ring...)
}

// interval is the sampling interval in seconds, 0 when s is nil.
func (s *Sampler) interval() float64 {
	if s == nil {
		return 0
	}
	return s.every.Seconds()
}

// sample is what one read of the metrics found. An optional value is
// nil when the registry has no such series (the Go and process
// collectors are the binary's to register).
type sample struct {
	At int64 // µs
	// From the process collector.
	CPUSeconds, RSSBytes, OpenFDs *float64
	// From the Go collector.
	HeapBytes, SysBytes, Goroutines, GCCount, GCPauseSeconds *float64
	// From queen_http_requests_total and _duration_seconds: requests
	// answered, those answered 4xx and 5xx, and the durations' sum
	// (seconds) and count.
	Requests, ClientErrors, ServerErrors float64
	DurationSum, DurationCount           float64
	// Messages is queen_messages_total by tenant label (tenantLabel),
	// then by event in msgEvents' order.
	Messages map[string][7]float64
}

// sampleGauges are the process's and Go's series a sample keeps as they
// are (nil when the registry lacks one), by name: each one's setter.
var sampleGauges = map[string]func(x *sample, v *float64){
	"process_cpu_seconds_total":     func(x *sample, v *float64) { x.CPUSeconds = v },
	"process_resident_memory_bytes": func(x *sample, v *float64) { x.RSSBytes = v },
	"process_open_fds":              func(x *sample, v *float64) { x.OpenFDs = v },
	"go_memstats_heap_alloc_bytes":  func(x *sample, v *float64) { x.HeapBytes = v },
	"go_memstats_sys_bytes":         func(x *sample, v *float64) { x.SysBytes = v },
	"go_goroutines":                 func(x *sample, v *float64) { x.Goroutines = v },
}

// readSample reads g once, as at.
func readSample(g prometheus.Gatherer, at time.Time) sample {
	x := sample{At: at.UnixMicro()}
	mfs, _ := g.Gather()
	for _, mf := range mfs {
		ms := mf.GetMetric()
		if len(ms) == 0 {
			continue
		}
		if set, ok := sampleGauges[mf.GetName()]; ok {
			set(&x, valueOf(ms[0]))
			continue
		}
		switch mf.GetName() {
		case "go_gc_duration_seconds":
			if sm := ms[0].GetSummary(); sm != nil {
				n, sum := float64(sm.GetSampleCount()), sm.GetSampleSum()
				x.GCCount, x.GCPauseSeconds = &n, &sum
			}
		case "queen_http_requests_total":
			for _, m := range ms {
				v := orZero(valueOf(m))
				x.Requests += v
				switch code := label(m, "status"); {
				case strings.HasPrefix(code, "4"):
					x.ClientErrors += v
				case strings.HasPrefix(code, "5"):
					x.ServerErrors += v
				}
			}
		case "queen_http_request_duration_seconds":
			for _, m := range ms {
				if h := m.GetHistogram(); h != nil {
					x.DurationSum += h.GetSampleSum()
					x.DurationCount += float64(h.GetSampleCount())
				}
			}
		case "queen_messages_total":
			x.Messages = make(map[string][7]float64)
			for _, m := range ms {
				t := label(m, "tenant")
				c := x.Messages[t]
				for i, e := range msgEvents {
					if label(m, "event") == e {
						c[i] += orZero(valueOf(m))
					}
				}
				x.Messages[t] = c
			}
		}
	}
	return x
}

// valueOf is a counter's, gauge's or untyped metric's value, nil for
// another kind.
func valueOf(m *dto.Metric) *float64 {
	var v float64
	switch {
	case m.Counter != nil:
		v = m.Counter.GetValue()
	case m.Gauge != nil:
		v = m.Gauge.GetValue()
	case m.Untyped != nil:
		v = m.Untyped.GetValue()
	default:
		return nil
	}
	return &v
}

// orZero is *v, 0 when v is nil.
func orZero(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

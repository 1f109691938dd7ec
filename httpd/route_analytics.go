package httpd

import (
	"math"
	"net/http"
	"time"
)

// The time series of the analytics routes come from the Sampler's
// history (Options.Sampler; none without one) and the metrics read at the
// request ("current"). A point describes the interval that ends at its
// timestamp, since the sample before it: counts are what happened in it,
// rates per second over it, gauges their value at its end. The oldest
// kept sample only starts the first interval. Series are this node's.
// The throughput is the caller's tenant's alone (the tenant label of
// queen_messages_total), so that no tenant sees another's traffic; the
// system and worker series are the node's process and HTTP API, whoever
// the requests were for.

// timeRange is an answer's "timeRange": the from and to asked for (ISO),
// null when open.
type timeRange struct {
	From *string `json:"from"`
	To   *string `json:"to"`
}

// window is the range [from, to] of stamps (µs) a series keeps.
type window struct {
	from, to int64
	tr       timeRange
}

func (w window) holds(us int64) bool { return us >= w.from && us <= w.to }

// decodeWindow reads the query's from and to, ISO-8601 as parseISO reads
// them (absent: open); from after to is 400. Other parameters (interval,
// say) are ignored: the interval is the Sampler's.
func decodeWindow(q query) (window, error) {
	w := window{from: math.MinInt64, to: math.MaxInt64}
	from, fromOK, to, toOK, err := q.isoRange()
	if err != nil {
		return w, err
	}
	if fromOK {
		w.from, w.tr.From = from, stampOrNull(from)
	}
	if toOK {
		w.to, w.tr.To = to, stampOrNull(to)
	}
	return w, nil
}

// windowOf reads the window of a request's query (decodeWindow).
var windowOf = queryFor(decodeWindow)

// series calls point for each kept sample inside w with the one before
// it, oldest first.
func series[P any](h []sample, w window, point func(prev, cur *sample) P) []P {
	out := []P{}
	for i := 1; i < len(h); i++ {
		if w.holds(h[i].At) {
			out = append(out, point(&h[i-1], &h[i]))
		}
	}
	return out
}

// current is the point from the newest kept sample (none: from the
// start, and no rates) to the metrics read now.
func current[P any](s *server, h []sample, point func(prev, cur *sample) P) P {
	now := readSample(s.gather, time.Now())
	var prev *sample
	if len(h) > 0 && h[len(h)-1].At < now.At {
		prev = &h[len(h)-1]
	}
	return point(prev, &now)
}

// delta is cur−prev of a counter (cur alone without prev), at least 0.
func delta(prev, cur *sample, get func(*sample) float64) float64 {
	if prev == nil {
		return max(get(cur), 0)
	}
	return max(get(cur)-get(prev), 0)
}

// perSecond is n over the interval from prev to cur, nil without prev.
func perSecond(prev, cur *sample, n float64) *float64 {
	if prev == nil || cur.At <= prev.At {
		return nil
	}
	r := n / (float64(cur.At-prev.At) / 1e6)
	return &r
}

// throughputPoint is one point of a throughput series: messages pushed
// (new records), found duplicate, delivered by pops, and settled by acks
// of each status, with the rates of the first three that matter most.
type throughputPoint struct {
	Timestamp string `json:"timestamp"`
	throughputTotals
	PushedPerSecond    *float64 `json:"pushedPerSecond"`
	DeliveredPerSecond *float64 `json:"deliveredPerSecond"`
	CompletedPerSecond *float64 `json:"completedPerSecond"`
}

// throughputOf makes the points of tenant's throughput.
func throughputOf(tenant string) func(prev, cur *sample) throughputPoint {
	t := tenantLabel(tenant)
	return func(prev, cur *sample) throughputPoint { return throughputAt(t, prev, cur) }
}

// throughputAt is the point of the tenant labelled t.
func throughputAt(t string, prev, cur *sample) throughputPoint {
	n := func(i int) int64 { return int64(delta(prev, cur, func(x *sample) float64 { return x.Messages[t][i] })) }
	p := throughputPoint{Timestamp: formatStamp(cur.At), throughputTotals: throughputTotals{Pushed: n(0), Duplicates: n(1),
		Delivered: n(2), Completed: n(3), Failed: n(4), Retried: n(5), DeadLettered: n(6)}}
	p.PushedPerSecond = perSecond(prev, cur, float64(p.Pushed))
	p.DeliveredPerSecond = perSecond(prev, cur, float64(p.Delivered))
	p.CompletedPerSecond = perSecond(prev, cur, float64(p.Completed))
	return p
}

// throughputTotals are the counts of a point, or their sum over a series
// (its "totals").
type throughputTotals struct {
	Pushed       int64 `json:"pushed"`
	Duplicates   int64 `json:"duplicates"`
	Delivered    int64 `json:"delivered"`
	Completed    int64 `json:"completed"`
	Failed       int64 `json:"failed"`
	Retried      int64 `json:"retried"`
	DeadLettered int64 `json:"deadLettered"`
}

func totalsOfSeries(ps []throughputPoint) throughputTotals {
	var t throughputTotals
	for _, p := range ps {
		c := p.throughputTotals
		t = throughputTotals{t.Pushed + c.Pushed, t.Duplicates + c.Duplicates, t.Delivered + c.Delivered,
			t.Completed + c.Completed, t.Failed + c.Failed, t.Retried + c.Retried, t.DeadLettered + c.DeadLettered}
	}
	return t
}

// systemPoint is one point of the system metrics: the process's CPU
// (seconds used so far, and percent of one core over the interval),
// memory, goroutines, open files and garbage collections. A value the
// registry lacks is null.
type systemPoint struct {
	Timestamp string `json:"timestamp"`
	CPU       struct {
		Seconds *float64 `json:"seconds"`
		Percent *float64 `json:"percent"`
	} `json:"cpu"`
	Memory struct {
		RSSBytes       *float64 `json:"rssBytes"`
		HeapAllocBytes *float64 `json:"heapAllocBytes"`
		SysBytes       *float64 `json:"sysBytes"`
	} `json:"memory"`
	Goroutines *float64 `json:"goroutines"`
	OpenFDs    *float64 `json:"openFds"`
	GC         struct {
		Count        *float64 `json:"count"`
		PauseSeconds *float64 `json:"pauseSeconds"`
	} `json:"gc"`
}

func systemAt(prev, cur *sample) systemPoint {
	p := systemPoint{Timestamp: formatStamp(cur.At), Goroutines: cur.Goroutines, OpenFDs: cur.OpenFDs}
	p.CPU.Seconds = cur.CPUSeconds
	if prev != nil && prev.CPUSeconds != nil && cur.CPUSeconds != nil {
		if r := perSecond(prev, cur, max(*cur.CPUSeconds-*prev.CPUSeconds, 0)); r != nil {
			pct := *r * 100
			p.CPU.Percent = &pct
		}
	}
	p.Memory.RSSBytes, p.Memory.HeapAllocBytes, p.Memory.SysBytes = cur.RSSBytes, cur.HeapBytes, cur.SysBytes
	p.GC.Count, p.GC.PauseSeconds = cur.GCCount, cur.GCPauseSeconds
	return p
}

// workerPoint is one point of the worker metrics. This broker has no
// pool of workers: the node's HTTP API is its one worker, and its point
// says how many requests it answered in the interval, how many 4xx and
// 5xx, the rate, and their mean duration (null when none).
type workerPoint struct {
	Timestamp         string   `json:"timestamp"`
	Requests          int64    `json:"requests"`
	RequestsPerSecond *float64 `json:"requestsPerSecond"`
	ClientErrors      int64    `json:"clientErrors"`
	ServerErrors      int64    `json:"serverErrors"`
	AvgLatencyMs      *float64 `json:"avgLatencyMs"`
}

func workerAt(prev, cur *sample) workerPoint {
	p := workerPoint{Timestamp: formatStamp(cur.At),
		Requests:     int64(delta(prev, cur, func(x *sample) float64 { return x.Requests })),
		ClientErrors: int64(delta(prev, cur, func(x *sample) float64 { return x.ClientErrors })),
		ServerErrors: int64(delta(prev, cur, func(x *sample) float64 { return x.ServerErrors }))}
	p.RequestsPerSecond = perSecond(prev, cur, float64(p.Requests))
	if n := delta(prev, cur, func(x *sample) float64 { return x.DurationCount }); n > 0 {
		ms := delta(prev, cur, func(x *sample) float64 { return x.DurationSum }) / n * 1000
		p.AvgLatencyMs = &ms
	}
	return p
}

// metricSeries answers a node's series of one kind: {"timeRange",
// "interval" (seconds between samples; 0 without a Sampler), "current",
// "timeSeries":[…]}.
func metricSeries[P any](s *server, point func(prev, cur *sample) P) http.Handler {
	return route(http.StatusOK, windowOf, func(r *http.Request, win window) (any, error) {
		h := s.samples.history()
		return struct {
			TimeRange  timeRange `json:"timeRange"`
			Interval   float64   `json:"interval"`
			Current    P         `json:"current"`
			TimeSeries []P       `json:"timeSeries"`
		}{win.tr, s.samples.interval(), current(s, h, point), series(h, win, point)}, nil
	})
}

// systemMetrics is GET /api/v1/analytics/system-metrics?from=&to=: this
// node's process, as its metrics registry shows it (the product's
// database of samples is this node's Sampler).
//
// Answer 200: {"timeRange":{from,to},"interval","current":point,
// "timeSeries":[point]}; a point is {timestamp,cpu:{seconds,percent},
// memory:{rssBytes,heapAllocBytes,sysBytes},goroutines,openFds,gc:{count,
// pauseSeconds}} (systemPoint). Errors: 400 for a from or to that is not
// ISO-8601, or a from after to.
func (s *server) systemMetrics() http.Handler { return metricSeries(s, systemAt) }

// workerMetrics is GET /api/v1/analytics/worker-metrics?from=&to=: the
// node's HTTP API as its one worker.
//
// Answer 200: {"timeRange","interval","current","timeSeries"} as
// system-metrics, a point being {timestamp,requests,requestsPerSecond,
// clientErrors,serverErrors,avgLatencyMs} (workerPoint).
func (s *server) workerMetrics() http.Handler { return metricSeries(s, workerAt) }

package main

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/queen-mq/queen-go/tools/internal/progress"
)

// requestsDone counts the HTTP requests that got an answer, over every
// client newClient made: what the progress line shows.
var requestsDone atomic.Int64

// countingTransport counts the round trips of its transport that
// answered.
type countingTransport struct{ rt http.RoundTripper }

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(r)
	if err == nil {
		requestsDone.Add(1)
	}
	return resp, err
}

// startProgress shows the run's progress on stderr while it is a
// terminal (and nothing otherwise): the time elapsed of -duration (or the
// requests of those -count needs), the requests answered and their
// current rate. The returned stop clears the line before the report.
func startProgress(o options) (stop func()) {
	line := progress.Stderr()
	start := time.Now()
	var m progress.Meter
	return line.Every(func() string { return progressText(o, time.Since(start), requestsDone.Load(), &m, time.Now()) })
}

// progressText is the progress line after el with n requests answered.
func progressText(o options, el time.Duration, n int64, m *progress.Meter, now time.Time) string {
	rate := m.Rate(float64(n), now)
	el = el.Truncate(100 * time.Millisecond)
	switch {
	case o.count > 0 && (o.mode == "push" || o.mode == "fetch" || o.mode == "txn"):
		total := (o.count + int64(o.batch) - 1) / int64(o.batch)
		return fmt.Sprintf("queen-bench %s: %d of %d requests, %s, %.0f requests/s", o.mode, n, total, el, rate)
	case o.mode == "timers":
		return fmt.Sprintf("queen-bench timers: %s, %d requests, %.0f requests/s", el, n, rate)
	default:
		return fmt.Sprintf("queen-bench %s: %s of %s, %d requests, %.0f requests/s", o.mode, el, o.duration, n, rate)
	}
}

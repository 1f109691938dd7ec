package httpd

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Engine is the engine every operational answer names.
const Engine = "raft"

// health is GET /health (API.md §9): 200 healthy when the broker is
// ready, else 503 settling; the broker's body follows status, engine and
// version.
func (s *server) health() http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		ready, body := s.b.Health(r.Context())
		status, word := http.StatusOK, "healthy"
		if !ready {
			status, word = http.StatusServiceUnavailable, "settling"
		}
		b := []byte{'{'}
		b = appendKey(b, "status")
		b = appendString(b, word)
		b = append(b, ',')
		b = appendKey(b, "engine")
		b = appendString(b, Engine)
		b = append(b, ',')
		b = appendKey(b, "version")
		b = appendString(b, s.version)
		members, err := objectMembers(body)
		if err != nil {
			s.log.ErrorContext(r.Context(), "httpd: health body is not a JSON object", logKeyError, err.Error())
		}
		for _, k := range sortedKeys(members) {
			if k == "status" || k == "engine" || k == "version" {
				continue
			}
			b = append(b, ',')
			b = appendString(b, k)
			b = append(b, ':')
			b = append(b, members[k]...)
		}
		b = append(b, '}', '\n')
		writeRaw(w, status, b)
		return nil
	})
}

// objectMembers marshals v, which must give a JSON object or null, and
// returns its members.
func objectMembers(v any) (object, error) {
	if v == nil {
		return nil, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if isNull(raw) {
		return nil, nil
	}
	return asObject(raw, "the body")
}

func sortedKeys(o object) []string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// status is GET /status: the broker's body.
func (s *server) status() http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		b, err := encodeJSON(s.b.Status(r.Context()))
		if err != nil {
			return fmt.Errorf("httpd: marshal status: %w", err)
		}
		writeRaw(w, http.StatusOK, b)
		return nil
	})
}

// metricsHandler is GET /metrics/prometheus and GET /metrics (the
// official client's admin.metrics(), "raw metrics text"): reg in the
// Prometheus text format 0.0.4. Both are public, outside /api/v1.
func metricsHandler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

// statsRefresh is POST /api/v1/stats/refresh: the raft engine keeps its
// statistics current, so there is nothing to refresh.
func statsRefresh() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, http.StatusOK, []byte(`{"success":true,"refreshed":false,"engine":"raft"}`+"\n"))
	})
}

// metricsJSON is GET /metrics: the node's metrics, those of
// /metrics/prometheus, as JSON. The 2.x client's admin.metrics() reads
// this route and decodes only JSON (any other answer reaches its caller as
// None), so the text format stays at /metrics/prometheus. Answer
// {"metrics":[{"name","help","type","samples":[{"labels":{…},"value"}]}]},
// by name; a histogram's or summary's sample has "count" and "sum" in
// place of "value".
func metricsJSON(g prometheus.Gatherer) http.Handler {
	type sample struct {
		Labels map[string]string `json:"labels"`
		Value  *float64          `json:"value,omitempty"`
		Count  *uint64           `json:"count,omitempty"`
		Sum    *float64          `json:"sum,omitempty"`
	}
	type family struct {
		Name    string   `json:"name"`
		Help    string   `json:"help"`
		Type    string   `json:"type"`
		Samples []sample `json:"samples"`
	}
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		mfs, err := g.Gather()
		if err != nil && len(mfs) == 0 {
			return err
		}
		out := struct {
			Metrics []family `json:"metrics"`
		}{Metrics: make([]family, 0, len(mfs))}
		for _, mf := range mfs {
			f := family{Name: mf.GetName(), Help: mf.GetHelp(), Type: strings.ToLower(mf.GetType().String()), Samples: []sample{}}
			for _, m := range mf.GetMetric() {
				s := sample{Labels: map[string]string{}}
				for _, l := range m.GetLabel() {
					s.Labels[l.GetName()] = l.GetValue()
				}
				switch {
				case m.Histogram != nil:
					s.Count, s.Sum = m.Histogram.SampleCount, m.Histogram.SampleSum
				case m.Summary != nil:
					s.Count, s.Sum = m.Summary.SampleCount, m.Summary.SampleSum
				default:
					if v := valueOf(m); v != nil && !math.IsNaN(*v) && !math.IsInf(*v, 0) { // JSON has neither
						s.Value = v
					}
				}
				f.Samples = append(f.Samples, s)
			}
			out.Metrics = append(out.Metrics, f)
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
}

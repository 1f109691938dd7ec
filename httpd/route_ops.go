package httpd

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

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

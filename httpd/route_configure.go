package httpd

import (
	"encoding/json"
	"net/http"

	"github.com/google/uuid"
)

// configureAnswer is the answer of POST /api/v1/configure.
type configureAnswer struct {
	Configured  bool            `json:"configured"`
	QueueID     string          `json:"queueId"`
	PartitionID *string         `json:"partitionId"`
	Queue       string          `json:"queue"`
	Namespace   string          `json:"namespace"`
	Task        string          `json:"task"`
	Storage     string          `json:"storage"`
	Options     json.RawMessage `json:"options"`
}

// configure is POST /api/v1/configure (API.md §8).
func (s *server) configure() http.Handler {
	return route(http.StatusOK, bodyOf(s, decodeConfigure), func(r *http.Request, req ConfigureRequest) (any, error) {
		got, err := s.b.Configure(r.Context(), tenantOf(r), req)
		if err != nil {
			return nil, err
		}
		opts, err := withDefaults(got.Options)
		queue := got.Queue
		if queue == "" {
			queue = req.Queue
		}
		return configureAnswer{
			Configured: true,
			QueueID:    uuid.UUID(got.QueueID).String(),
			Queue:      queue,
			Namespace:  got.Namespace,
			Task:       got.Task,
			Storage:    "segments",
			Options:    opts,
		}, err
	})
}

// decodeConfigure checks a configure body, which must be valid JSON.
func decodeConfigure(body []byte) (ConfigureRequest, error) {
	var req ConfigureRequest
	o, err := queueBody(body, &req.Queue)
	if err != nil {
		return req, err
	}
	mode, _, err := o.str("mode", "mode")
	if err != nil {
		return req, err
	}
	switch mode {
	case "", "merge":
	case "replace":
		req.Replace = true
	default:
		return req, badRequest("mode %q must be merge or replace", mode)
	}
	opts := object{}
	if !isNull(o["options"]) {
		if opts, err = asObject(o["options"], "options"); err != nil {
			return req, err
		}
	}
	// The 2.x client's queue(q).namespace(ns).task(t).create() sends
	// namespace and task beside options (null when not set): they set the
	// options' namespace and task, which must agree when both are given.
	for _, k := range []string{"namespace", "task"} {
		if isNull(o[k]) {
			continue
		}
		v, _, err := o.str(k, k)
		if err != nil {
			return req, err
		}
		if raw, ok := opts[k]; ok && !isNull(raw) {
			in, _, err := opts.str(k, "options."+k)
			if err != nil {
				return req, err
			}
			if in != v {
				return req, badRequest("%s %q and options.%s %q differ", k, v, k, in)
			}
			continue
		}
		b, _ := json.Marshal(v)
		opts[k] = b
	}
	req.Options, err = normalizeOptions(opts)
	return req, err
}

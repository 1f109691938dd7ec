package main

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/httpd"
)

// withDeadline gives every request d (QUEEN_STMT_TIMEOUT_MS) to do its
// work. A long-polling pop gets its wait on top: its timeout (API.md §2,
// up to 60 s) is time spent waiting for messages, not work, so a pop with
// wait=true&timeout=60000 is answered when the 60 s are up, with d left
// for its last try. An ephemeral pop (GET /api/v1/ephemeral/pop) reads
// wait and timeout the same way.
func withDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d+longPoll(r))
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// longPoll is how long r may wait for messages: a pop's timeout when it
// asks to wait, else 0. Bad values give 0; the route refuses them itself.
func longPoll(r *http.Request) time.Duration {
	if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, "/api/v1/pop/") && r.URL.Path != "/api/v1/ephemeral/pop" {
		return 0
	}
	q := r.URL.Query()
	if q.Get("wait") != "true" {
		return 0
	}
	t := httpd.DefaultPopTimeout
	if v := q.Get("timeout"); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 0 {
			return 0
		}
		t = time.Duration(min(ms, httpd.MaxPopTimeout.Milliseconds())) * time.Millisecond
	}
	return t
}

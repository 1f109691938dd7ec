package main

import (
	"net/http/httptest"
	"testing"
	"time"
)

func TestLongPollWidensOnlyAWaitingPopsDeadline(t *testing.T) {
	cases := []struct {
		method, target string
		want           time.Duration
	}{
		{"GET", "/api/v1/pop/queue/q?wait=true&timeout=45000", 45 * time.Second},
		{"GET", "/api/v1/pop/queue/q/partition/p?wait=true", 30 * time.Second},
		{"GET", "/api/v1/pop/queue/q?wait=true&timeout=600000", 60 * time.Second},
		{"GET", "/api/v1/pop/queue/q?timeout=45000", 0},
		{"GET", "/api/v1/pop/queue/q?wait=true&timeout=soon", 0},
		{"GET", "/api/v1/pop?namespace=n&wait=true", 0},
		{"POST", "/api/v1/pop/queue/q?wait=true", 0},
		{"GET", "/api/v1/kv/ns/k?wait=true", 0},
		{"GET", "/api/v1/ephemeral/pop?queue=q&wait=true&timeout=45000", 45 * time.Second},
		{"GET", "/api/v1/ephemeral/pop?queue=q", 0},
		{"GET", "/api/v1/ephemeral/popx?queue=q&wait=true", 0},
	}
	for _, c := range cases {
		if got := longPoll(httptest.NewRequest(c.method, c.target, nil)); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.method, c.target, got, c.want)
		}
	}
}

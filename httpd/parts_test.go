package httpd

import (
	"maps"
	"net/http"
	"slices"
	"testing"
)

// TestPartsOfFull: the binary's path (PartsOf a Full, no assertion)
// fills every part, and registers every route of wantClasses, the same
// table as New's path (parts found by assertion) over the same broker.
// A broker of no part gets only Broker's routes on New's path.
func TestPartsOfFull(t *testing.T) {
	f := allBroker{&traceFake{fakeBroker: &fakeBroker{}}}
	p := PartsOf(f)
	if p != partsOf(f) {
		t.Errorf("PartsOf(f) = %+v, partsOf(f) = %+v", p, partsOf(f))
	}
	_, full := build(f, p, Options{})
	if !maps.Equal(full, wantClasses) {
		for _, k := range slices.Sorted(maps.Keys(wantClasses)) {
			if _, ok := full[k]; !ok {
				t.Errorf("NewFull's path lacks %s", k)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(full)) {
			if _, ok := wantClasses[k]; !ok {
				t.Errorf("NewFull's path has %s, which wantClasses lacks", k)
			}
		}
	}
	_, found := build(f, partsOf(f), Options{})
	if !maps.Equal(full, found) {
		t.Errorf("NewFull's path has %d routes, New's %d over the same broker", len(full), len(found))
	}
	b := brokerOnly{&fakeBroker{}}
	if p := partsOf(b); p != (Parts{}) {
		t.Errorf("partsOf(brokerOnly) = %+v, want no part", p)
	}
	_, few := build(b, partsOf(b), Options{})
	for _, k := range []string{"GET /api/v1/pop/queue/{queue}", "POST /api/v1/transaction", "GET /api/v1/raft/members",
		"POST /streams/v1/cycle", "GET /api/v1/dlq"} {
		if _, ok := few[k]; ok {
			t.Errorf("a broker of no part has %s", k)
		}
		if _, ok := full[k]; !ok {
			t.Errorf("NewFull's path lacks %s", k)
		}
	}
}

// TestNewFull: the handler NewFull returns serves the routes of every
// part (here GET /api/v1/raft/members, a Cluster's), not 404.
func TestNewFull(t *testing.T) {
	h := NewFull(allBroker{&traceFake{fakeBroker: &fakeBroker{}}}, Options{})
	w := serve(&env{h: h}, newRequest(http.MethodGet, "/api/v1/raft/members", ""))
	if w.Code == http.StatusNotFound {
		t.Fatalf("GET /api/v1/raft/members: %d %s", w.Code, w.Body)
	}
}

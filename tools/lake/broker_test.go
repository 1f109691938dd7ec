package lake

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A refusal of the broker's reads reads as queen-lake has always printed
// it: the path, the status with its text, the body.
func TestBrokerRefusalText(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "raft has no leader", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	err := newBrokerClient(&Config{Broker: srv.URL, Tenant: DefaultTenant}).post(context.Background(), "/api/v1/fetch", struct{}{}, &struct{}{})
	want := "lake: broker /api/v1/fetch: 503 Service Unavailable: raft has no leader\n"
	if err == nil || err.Error() != want {
		t.Fatalf("post = %v, want %q", err, want)
	}
}

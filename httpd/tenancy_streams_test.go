package httpd

import (
	"context"
	"strings"
	"testing"
)

// streamTenants is a Broker that is a Streamer whose calls are recorded,
// with their tenant, in the fakeBroker's list.
type streamTenants struct{ *fakeBroker }

func (f streamTenants) RegisterStream(_ context.Context, tenant string, r StreamRegister) (StreamRegistered, error) {
	f.record("RegisterStream", tenant, r)
	return StreamRegistered{QueryID: "00000000-0000-8000-8000-000000000001", Name: r.Name, ConfigHash: r.ConfigHash, Fresh: true}, nil
}
func (f streamTenants) StreamQueries(_ context.Context, tenant, name string) ([]StreamQuery, error) {
	f.record("StreamQueries", tenant, name)
	if name == "" {
		return nil, nil
	}
	return []StreamQuery{{QueryID: "00000000-0000-8000-8000-000000000001", Name: name}}, nil
}
func (f streamTenants) DeleteStream(_ context.Context, tenant, name string) (bool, int64, error) {
	f.record("DeleteStream", tenant, name)
	return true, 0, nil
}
func (f streamTenants) StreamState(_ context.Context, tenant string, r StreamStateRequest) ([]StreamRow, bool, error) {
	f.record("StreamState", tenant, r)
	return nil, true, nil
}
func (f streamTenants) StreamCycle(_ context.Context, tenant string, c StreamCycle) (StreamCycleAnswer, error) {
	f.record("StreamCycle", tenant, c)
	return StreamCycleAnswer{Success: true}, nil
}

// streamTenantRequests are the requests of every /streams/v1 route, by
// "METHOD /full/pattern" as the route table has it, and the Streamer
// method each calls with the request's tenant.
var streamTenantRequests = []tenantRequest{
	{"POST /streams/v1/queries", "/streams/v1/queries", `{"name":"q","source_queue":"src","config_hash":"h"}`, "RegisterStream"},
	{"GET /streams/v1/queries", "/streams/v1/queries", ``, "StreamQueries"},
	{"GET /streams/v1/queries/{name}", "/streams/v1/queries/q", ``, "StreamQueries"},
	{"DELETE /streams/v1/queries/{name}", "/streams/v1/queries/q", ``, "DeleteStream"},
	{"POST /streams/v1/state/get", "/streams/v1/state/get", `{"query_id":"q","partition_id":"3"}`, "StreamState"},
	{"POST /streams/v1/cycle", "/streams/v1/cycle", `{"query_id":"q","partition_id":"3","consumer_group":"streams.q"}`, "StreamCycle"},
}

// TestTenancyStreamRoutes: every /streams/v1 route of the route table
// has a case in streamTenantRequests, and each case's call gets the
// request's tenant under every header case (tenancyCases), as the
// /api/v1 routes do in TestTenancyEveryRoute; a bad header is refused
// before any call.
func TestTenancyStreamRoutes(t *testing.T) {
	f := streamTenants{&fakeBroker{}}
	_, classes := build(f, partsOf(f), Options{})
	cased := map[string]bool{}
	for _, r := range streamTenantRequests {
		cased[r.route] = true
		if _, ok := classes[r.route]; !ok {
			t.Errorf("streamTenantRequests has %s, which is not in the route table", r.route)
		}
	}
	for key := range classes {
		_, pattern, _ := strings.Cut(key, " ")
		if strings.HasPrefix(pattern, "/streams/v1/") && !cased[key] {
			t.Errorf("%s has no tenancy case: add a request to streamTenantRequests", key)
		}
	}
	for _, r := range streamTenantRequests {
		method, _, _ := strings.Cut(r.route, " ")
		for _, c := range tenancyCases {
			t.Run(method+" "+r.target+" "+c.name, func(t *testing.T) {
				f := streamTenants{&fakeBroker{}}
				e := newEnvOf(t, f, f.fakeBroker, Options{TenancyHeader: c.on})
				w, ok := c.ask(t, e, method, r.target, r.body)
				if !ok {
					return
				}
				if w.Code >= 300 {
					t.Fatalf("answered %d %s", w.Code, w.Body)
				}
				if got := e.fb.only(t); got.method != r.call || got.tenant != c.tenant {
					t.Fatalf("broker got %s for tenant %q, want %s for %q", got.method, got.tenant, r.call, c.tenant)
				}
			})
		}
	}
}

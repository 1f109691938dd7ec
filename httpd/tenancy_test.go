package httpd

import (
	"net/http"
	"testing"

	"github.com/queen-mq/queen-go/httpd/client"
)

// The client sends the tenant in the header the server reads.
func TestTenantHeaderIsTheClients(t *testing.T) {
	if client.TenantHeader != TenantHeader {
		t.Fatalf("client.TenantHeader %q, the server reads %q", client.TenantHeader, TenantHeader)
	}
}

func TestTenancy(t *testing.T) {
	const id = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
	cases := []struct {
		name   string
		on     bool
		header string
		status int
		tenant string
	}{
		{"off, no header", false, "", 201, DefaultTenant},
		{"off, header ignored", false, id, 201, DefaultTenant},
		{"off, bad header ignored", false, "nope", 201, DefaultTenant},
		{"on, no header", true, "", 201, DefaultTenant},
		{"on, header", true, id, 201, id},
		{"on, upper case", true, "6BA7B810-9DAD-11D1-80B4-00C04FD430C8", 201, id},
		{"on, not a UUID", true, "tenant-1", 400, ""},
		{"on, UUID without hyphens", true, "6ba7b8109dad11d180b400c04fd430c8", 400, ""},
		{"on, URN", true, "urn:uuid:" + id, 400, ""},
		{"on, the system tenant", true, SystemTenant, 400, ""},
		{"off, the system tenant ignored", false, SystemTenant, 201, DefaultTenant},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{TenancyHeader: c.on})
			var hdr []string
			if c.header != "" {
				hdr = []string{TenantHeader, c.header}
			}
			w := e.do(t, "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1}]}`, hdr...)
			if c.status == 400 {
				wantError(t, w, http.StatusBadRequest, CodeBadRequest, "x-queen-tenant")
				e.fb.none(t)
				return
			}
			wantStatus(t, w, c.status)
			if got := e.fb.only(t).tenant; got != c.tenant {
				t.Fatalf("tenant = %q, want %q", got, c.tenant)
			}
		})
	}
}

// TestTenancyHeaderOnce: with tenancy on, a request carrying the header
// twice is refused, whatever the values, before any broker call; off,
// the header is ignored.
func TestTenancyHeaderOnce(t *testing.T) {
	const id = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
	for _, values := range [][]string{{id, "6ba7b811-9dad-11d1-80b4-00c04fd430c8"}, {id, id}, {"", id}} {
		for _, on := range []bool{true, false} {
			e := newEnv(t, nil, Options{TenancyHeader: on})
			r := newRequest("POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1}]}`)
			for _, v := range values {
				r.Header.Add(TenantHeader, v)
			}
			w := serve(e, r)
			if !on {
				wantStatus(t, w, 201)
				if got := e.fb.only(t).tenant; got != DefaultTenant {
					t.Fatalf("tenancy off, header %q: tenant %q", values, got)
				}
				continue
			}
			wantError(t, w, http.StatusBadRequest, CodeBadRequest, "x-queen-tenant is given 2 times")
			e.fb.none(t)
		}
	}
}

// TestTenancyEveryRoute: every broker call of an /api route gets the
// header's tenant.
func TestTenancyEveryRoute(t *testing.T) {
	const id = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
	routes := []struct{ method, path, body string }{
		{"POST", "/api/v1/fetch", `{"entries":[{"queue":"q","offset":0}]}`},
		{"POST", "/api/v1/fetch/offsets", `{"entries":[{"queue":"q","timestamp":0}]}`},
		{"POST", "/api/v1/partitions/changed", `{"entries":[]}`},
		{"POST", "/api/v1/configure", `{"queue":"q"}`},
		{"POST", "/api/v1/kv", `[]`},
		{"DELETE", "/api/v1/kv/a/k", ``},
		{"GET", "/api/v1/resources/queues", ``},
		{"GET", "/api/v1/resources/queues/q", ``},
		{"POST", "/api/v1/ephemeral/push", `{"queue":"q","messages":[{"payload":1}]}`},
		{"GET", "/api/v1/ephemeral/pop?queue=q", ``},
		{"POST", "/api/v1/ephemeral/ack", `{"queue":"q","acks":[{"id":"a"}]}`},
		{"POST", "/api/v1/ephemeral/configure", `{"queue":"q"}`},
		{"POST", "/api/v1/ephemeral/reset", `{"queue":"q"}`},
		{"DELETE", "/api/v1/ephemeral/queue/q", ``},
		{"GET", "/api/v1/ephemeral/queues", ``},
		{"GET", "/api/v1/ephemeral/queues/q/depth", ``},
	}
	routes = append(routes, statsRequests...)

	for _, r := range routes {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			e := newEnv(t, answerKV(`{"results":[{"index":0}]}`), Options{TenancyHeader: true})
			e.do(t, r.method, r.path, r.body, TenantHeader, id)
			if got := e.fb.only(t).tenant; got != id {
				t.Fatalf("tenant = %q", got)
			}
		})
	}
}

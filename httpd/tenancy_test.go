package httpd

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/queen-mq/queen-go/httpd/client"
)

// The client sends the tenant in the header the server reads.
func TestTenantHeaderIsTheClients(t *testing.T) {
	if client.TenantHeader != TenantHeader {
		t.Fatalf("client.TenantHeader %q, the server reads %q", client.TenantHeader, TenantHeader)
	}
}

// tenancyID is a tenant a request names in the header.
const tenancyID = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"

// tenancyCase is a request's x-queen-tenant ("" for none) with tenancy
// on or off, and the tenant the broker gets: "" when the header is
// refused (400 bad_request naming it, before any broker call).
type tenancyCase struct {
	name   string
	on     bool
	header string
	tenant string
}

// tenancyCases are the headers TestTenancy and TestTenancyEveryRoute
// send.
var tenancyCases = []tenancyCase{
	{"off, no header", false, "", DefaultTenant},
	{"off, header ignored", false, tenancyID, DefaultTenant},
	{"off, bad header ignored", false, "nope", DefaultTenant},
	{"on, no header", true, "", DefaultTenant},
	{"on, header", true, tenancyID, tenancyID},
	{"on, upper case", true, "6BA7B810-9DAD-11D1-80B4-00C04FD430C8", tenancyID},
	{"on, not a UUID", true, "tenant-1", ""},
	{"on, UUID without hyphens", true, "6ba7b8109dad11d180b400c04fd430c8", ""},
	{"on, URN", true, "urn:uuid:" + tenancyID, ""},
	{"on, the system tenant", true, SystemTenant, ""},
	{"off, the system tenant ignored", false, SystemTenant, DefaultTenant},
}

// ask sends method target with body and c's header over e. A refused
// header must be answered 400 bad_request naming it, with no broker
// call: then ok is false. Otherwise the answer is w.
func (c tenancyCase) ask(t *testing.T, e *env, method, target, body string) (w *httptest.ResponseRecorder, ok bool) {
	t.Helper()
	var hdr []string
	if c.header != "" {
		hdr = []string{TenantHeader, c.header}
	}
	w = e.do(t, method, target, body, hdr...)
	if c.tenant == "" {
		wantError(t, w, http.StatusBadRequest, CodeBadRequest, "x-queen-tenant")
		e.fb.none(t)
		return w, false
	}
	return w, true
}

func TestTenancy(t *testing.T) {
	for _, c := range tenancyCases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{TenancyHeader: c.on})
			w, ok := c.ask(t, e, "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1}]}`)
			if !ok {
				return
			}
			wantStatus(t, w, 201)
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
	for _, values := range [][]string{{tenancyID, "6ba7b811-9dad-11d1-80b4-00c04fd430c8"}, {tenancyID, tenancyID}, {"", tenancyID}} {
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

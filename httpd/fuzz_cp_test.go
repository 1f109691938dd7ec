package httpd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// cpRecorder is a ControlPlane that checks what the routes hand it.
type cpRecorder struct{ t *testing.T }

func (c cpRecorder) slug(s string) {
	if !cpSlug.MatchString(s) {
		c.t.Fatalf("the routes passed the slug %q", s)
	}
}

func (c cpRecorder) CreateTenant(_ context.Context, t CPTenantSpec) (CPTenant, error) {
	c.slug(t.Slug)
	return CPTenant{Slug: t.Slug}, nil
}
func (c cpRecorder) Tenants(context.Context) ([]CPTenant, error) { return nil, nil }
func (c cpRecorder) Tenant(_ context.Context, s string) (CPTenant, error) {
	c.slug(s)
	return CPTenant{Slug: s}, nil
}
func (c cpRecorder) SetTenantStatus(_ context.Context, s, st string) (CPTenant, error) {
	c.slug(s)
	c.status(st)
	return CPTenant{}, nil
}
func (c cpRecorder) status(st string) {
	if st != CPStatusActive && st != CPStatusPushBlocked && st != CPStatusSuspended {
		c.t.Fatalf("the routes passed the status %q", st)
	}
}
func (c cpRecorder) PurgeTenant(_ context.Context, s string) (CPPurge, error) {
	c.slug(s)
	return CPPurge{}, nil
}
func (c cpRecorder) DeleteTenant(_ context.Context, s string) (CPPurge, error) {
	c.slug(s)
	return CPPurge{}, nil
}
func (c cpRecorder) EnsureCluster(_ context.Context, s string, spec CPClusterSpec) (CPCluster, error) {
	c.slug(s)
	c.slug(spec.Tenant)
	return CPCluster{}, nil
}
func (c cpRecorder) Clusters(_ context.Context, tenant string) ([]CPCluster, error) {
	if tenant != "" {
		c.slug(tenant)
	}
	return nil, nil
}
func (c cpRecorder) Cluster(_ context.Context, s string) (CPCluster, error) {
	c.slug(s)
	return CPCluster{}, nil
}
func (c cpRecorder) SetClusterStatus(_ context.Context, s, st string) (CPCluster, error) {
	c.slug(s)
	c.status(st)
	return CPCluster{}, nil
}
func (c cpRecorder) DeleteCluster(_ context.Context, s string) (CPPurge, error) {
	c.slug(s)
	return CPPurge{}, nil
}
func (c cpRecorder) RegisterKey(_ context.Context, k CPKeySpec) (CPKey, error) {
	c.slug(k.Cluster)
	if len(k.Scopes) == 0 || (k.Hash != "" && !cpHash.MatchString(k.Hash)) || (k.Env != "" && !cpEnv.MatchString(k.Env)) {
		c.t.Fatalf("the routes passed the key %+v", k)
	}
	for _, s := range k.Scopes {
		if s != CPScopeProduce && s != CPScopeConsume && s != CPScopeAdmin && s != CPScopeRead {
			c.t.Fatalf("the routes passed the scope %q", s)
		}
	}
	return CPKey{}, nil
}
func (c cpRecorder) Keys(context.Context, string) ([]CPKey, error)   { return nil, nil }
func (c cpRecorder) RevokeKey(context.Context, string) (bool, error) { return false, nil }
func (c cpRecorder) PutSink(_ context.Context, s string, body []byte) (CPSink, error) {
	c.slug(s)
	if !json.Valid(body) || len(body) > CPMaxBodyBytes {
		c.t.Fatalf("the routes passed the body %q", body)
	}
	return CPSink{}, nil
}
func (c cpRecorder) Sink(_ context.Context, s string) (CPSink, error) {
	c.slug(s)
	return CPSink{}, nil
}
func (c cpRecorder) DeleteSink(_ context.Context, s string) (bool, error) {
	c.slug(s)
	return false, nil
}

// FuzzCPRoutes: any method, path and body on the control plane reaches
// the ControlPlane only as checked values, and is otherwise refused with
// a JSON error and its code; a request without the token never gets
// past 401.
func FuzzCPRoutes(f *testing.F) {
	for _, s := range [][3]string{
		{"POST", "/api/cp/tenants", `{"slug":"acme","name":"A"}`},
		{"PUT", "/api/cp/clusters/acme-prod", `{"tenant":"acme","brokerTenant":"x"}`},
		{"PUT", "/api/cp/tenants/acme/status", `{"status":"suspended"}`},
		{"POST", "/api/cp/keys", `{"cluster":"c","scopes":["read","read"],"hash":"` + string(bytes.Repeat([]byte("a"), 64)) + `"}`},
		{"PUT", "/api/cp/clusters/c/s3", `{"bucket":"b","secretKey":"s"}`},
		{"GET", "/api/cp/clusters?tenant=-bad", ``},
		{"DELETE", "/api/cp/keys/0123456789abcdef", ``},
	} {
		f.Add(s[0], s[1], []byte(s[2]), true)
	}
	f.Fuzz(func(t *testing.T, method, path string, body []byte, token bool) {
		h := New(&fakeBroker{}, Options{ControlPlane: cpRecorder{t}, CPToken: "fuzz-token-0123456789"})
		r, err := http.NewRequest(method, "http://x"+path, bytes.NewReader(body))
		if err != nil || !strings.HasPrefix(r.URL.Path, "/api/cp/") {
			return
		}
		if token {
			r.Header.Set(CPTokenHeader, "fuzz-token-0123456789")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if !token && w.Code != http.StatusUnauthorized && w.Code != http.StatusNotFound {
			t.Fatalf("%s %s without the token answered %d", method, path, w.Code)
		}
		if w.Code >= 400 {
			var e struct{ Error, Code string }
			if json.Unmarshal(w.Body.Bytes(), &e) != nil || e.Code == "" {
				t.Fatalf("%s %s answered %d %q", method, path, w.Code, w.Body)
			}
		}
	})
}

// refuseAll is an authenticator that recognises no credential.
type refuseAll struct{}

func (refuseAll) Authenticate(*http.Request) (Principal, error) {
	return nil, fmt.Errorf("%w: a credential nobody has", ErrNoCredential)
}

// TestCPRoutesAreNotTheChains: the control plane's routes answer to the cp
// token alone; the credential chain (a JWT, an API key) neither guards
// them nor opens them.
func TestCPRoutesAreNotTheChains(t *testing.T) {
	h := New(&fakeBroker{}, Options{Authenticators: []Authenticator{refuseAll{}}, ControlPlane: cpRecorder{t}, CPToken: "cp-token-0123456789"})
	get := func(token string) int {
		r := httptest.NewRequest("GET", "/api/cp/tenants", nil)
		if token != "" {
			r.Header.Set(CPTokenHeader, token)
		}
		r.Header.Set("Authorization", "Bearer some.jwt.token")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	if c := get("cp-token-0123456789"); c != http.StatusOK {
		t.Fatalf("with the cp token and a refused JWT: %d, want 200", c)
	}
	if c := get(""); c != http.StatusUnauthorized {
		t.Fatalf("without the cp token: %d, want 401", c)
	}
	r := httptest.NewRequest("GET", "/api/v1/resources/queues", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusUnauthorized {
		t.Fatalf("the data plane with the chain refusing: %d, want 401", w.Code)
	}
}

// TestCPTokenReadsTheNode: beside a credential chain, the control plane's
// token reaches the node-wide reports and nothing of a tenant's.
func TestCPTokenReadsTheNode(t *testing.T) {
	h := New(&fakeBroker{}, Options{Authenticators: []Authenticator{refuseAll{}}, ControlPlane: cpRecorder{t}, CPToken: "cp-token-0123456789"})
	code := func(path, token string) int {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set(CPTokenHeader, token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	if c := code("/status", "cp-token-0123456789"); c != http.StatusOK {
		t.Errorf("/status with the cp token: %d", c)
	}
	if c := code("/status", "cp-token-012345678"); c != http.StatusUnauthorized {
		t.Errorf("/status with a wrong cp token: %d", c)
	}
	if c := code("/api/v1/resources/queues", "cp-token-0123456789"); c != http.StatusForbidden {
		t.Errorf("a tenant's queues with the cp token: %d, want 403", c)
	}
}

// TestControlPlaneBindsTenantsToKeys: with the control plane on, a
// credential bound to no tenant (a JWT, here tokenAuth) reaches the
// default tenant only: naming another in x-queen-tenant is 403; and a
// skip path serves reads alone, never a write.
func TestControlPlaneBindsTenantsToKeys(t *testing.T) {
	h := New(allBroker{&traceFake{fakeBroker: &fakeBroker{}}}, Options{TenancyHeader: true, Authenticators: []Authenticator{tokenAuth{}},
		ControlPlane: cpRecorder{t}, CPToken: "cp-token-0123456789", SkipPaths: []string{"/api/v1/resources/"}})
	code := func(method, path string, header ...string) int {
		r := httptest.NewRequest(method, path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	const other = "11111111-2222-4333-8444-555555555555"
	if c := code("GET", "/api/v1/resources/queues", "Authorization", "Token ops"); c != http.StatusOK {
		t.Errorf("a JWT on the default tenant: %d", c)
	}
	if c := code("GET", "/api/v1/resources/queues", "Authorization", "Token ops", TenantHeader, other); c != http.StatusForbidden {
		t.Errorf("a JWT naming another tenant: %d, want 403", c)
	}
	if c := code("GET", "/api/v1/resources/queues", TenantHeader, other); c != http.StatusForbidden {
		t.Errorf("a skip path naming another tenant: %d, want 403", c)
	}
	if c := code("DELETE", "/api/v1/resources/queues/q"); c != http.StatusUnauthorized {
		t.Errorf("a write through a skip path: %d, want 401", c)
	}
}

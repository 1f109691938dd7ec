package httpd

import (
	"context"
	"net/http"

	"github.com/google/uuid"
)

// TenantHeader carries the tenant when Options.TenancyHeader is on. The
// header is trusted blindly: only the proxy may reach such a broker.
const TenantHeader = "x-queen-tenant"

type tenantKey struct{}

// tenancy puts the request's tenant in its context: the tenant the
// request's credential is bound to (a control-plane API key's, whatever
// the header says), else the header's UUID
// (canonical lower-case form) when on is true and the header is there,
// DefaultTenant otherwise. A header that is not a UUID, or that names
// SystemTenant, is 400 bad_request naming the header, and so is a request
// that carries the header more than once: whichever one a proxy added, a
// client's own must never be the one read.
//
// keysOnly (the control plane is on, its API keys guard the data plane):
// the header is a key's business alone. A request without a tenant-bound
// credential (a JWT, a skip path) that names a tenant is 403 forbidden,
// so that only a tenant's own key reaches its data.
func tenancy(on, keysOnly bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p := PrincipalOf(r); p != nil && p.Tenant() != "" {
				next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tenantKey{}, p.Tenant())))
				return
			}
			if h := r.Header.Get(TenantHeader); keysOnly && h != "" && h != DefaultTenant {
				writeError(w, r, &Error{Status: http.StatusForbidden, Code: CodeForbidden, Message: TenantHeader +
					" names a tenant, and with the control plane on only a tenant's API key reaches a tenant other than the default"})
				return
			}
			tenant := DefaultTenant
			if n := len(r.Header.Values(TenantHeader)); on && n > 1 {
				writeError(w, r, badRequest("%s is given %d times: a request names one tenant", TenantHeader, n))
				return
			}
			if h := r.Header.Get(TenantHeader); on && h != "" {
				id, err := uuid.Parse(h)
				if err != nil || len(h) != 36 {
					writeError(w, r, badRequest("%s %q is not a UUID", TenantHeader, h))
					return
				}
				if tenant = id.String(); tenant == SystemTenant {
					writeError(w, r, badRequest("%s %s is the system tenant, which no request may name", TenantHeader, h))
					return
				}
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tenantKey{}, tenant)))
		})
	}
}

// tenantOf is the tenant tenancy put in the request's context.
func tenantOf(r *http.Request) string {
	if t, ok := r.Context().Value(tenantKey{}).(string); ok {
		return t
	}
	return DefaultTenant
}

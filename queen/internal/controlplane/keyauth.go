package controlplane

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/queen-mq/queen-go/httpd"
)

// Authenticate is the data plane's check of a proxy API key
// (httpd.Authenticator): a request whose Authorization is "Bearer qk_…"
// gets the key's principal, bound to its cluster's broker tenant; any
// other request is httpd.ErrNoCredential, for the next authenticator of
// the chain. A key that is not registered (or was revoked) is 401; a
// lookup that cannot be made now is its own error (a 503).
func (p *Plane) Authenticate(r *http.Request) (httpd.Principal, error) {
	auth := r.Header.Values("Authorization")
	key, ok := "", len(auth) == 1
	if ok {
		key, ok = strings.CutPrefix(auth[0], "Bearer ")
	}
	if !ok || !strings.HasPrefix(key, KeyPrefix) {
		return nil, fmt.Errorf("%w: an API key (Authorization: Bearer %s<env>_…)", httpd.ErrNoCredential, KeyPrefix)
	}
	g, found, err := p.CheckKey(r.Context(), key)
	if err != nil {
		var e *httpd.Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, httpd.CPError(http.StatusServiceUnavailable, httpd.CodeRetry, "the API key could not be checked now; retry")
	}
	if !found {
		return nil, errors.New("the API key is not registered (never, or revoked)")
	}
	return keyPrincipal{g}, nil
}

// keyPrincipal is what a proxy API key grants (API.md §10): produce
// reaches push and transaction, consume pop, ack and leases, admin
// configure, deletes, seeks and DLQ replay, read the read-only routes;
// KV, locks and timers need produce or consume. No key reaches the
// control plane.
type keyPrincipal struct{ g KeyGrant }

var (
	_ httpd.Principal = keyPrincipal{}
	_ httpd.Refuser   = keyPrincipal{}
)

func (k keyPrincipal) Allows(c httpd.Class) bool {
	g := k.g
	switch c {
	case httpd.ClassPublic:
		return true
	case httpd.ClassRead:
		return g.Has(httpd.CPScopeRead) || g.Has(httpd.CPScopeAdmin)
	case httpd.ClassPush, httpd.ClassTxn:
		return g.Has(httpd.CPScopeProduce)
	case httpd.ClassConsume:
		return g.Has(httpd.CPScopeConsume)
	case httpd.ClassTimers, httpd.ClassShared, httpd.ClassSharedRead:
		return g.Has(httpd.CPScopeProduce) || g.Has(httpd.CPScopeConsume)
	case httpd.ClassAdmin, httpd.ClassConfigure:
		return g.Has(httpd.CPScopeAdmin)
	}
	return false
}

// Refuse answers the cluster's status: suspended (or being deleted)
// reaches nothing, push_blocked no write of new records.
func (k keyPrincipal) Refuse(c httpd.Class) error {
	switch k.g.Status {
	case httpd.CPStatusActive:
		return nil
	case httpd.CPStatusPushBlocked:
		if c == httpd.ClassPush || c == httpd.ClassTxn || c == httpd.ClassTimers {
			return httpd.CPError(http.StatusForbidden, httpd.CodeCPPushBlocked, "cluster "+k.g.Cluster+" may not push now (push_blocked)")
		}
		return nil
	}
	return httpd.CPError(http.StatusForbidden, httpd.CodeCPClusterSuspended, "cluster "+k.g.Cluster+" is "+k.g.Status)
}

func (k keyPrincipal) Subject() string { return "key:" + k.g.ID }
func (k keyPrincipal) Tenant() string  { return k.g.BrokerTenant }
func (k keyPrincipal) String() string {
	return "an API key of cluster " + k.g.Cluster + " with scopes " + strings.Join(k.g.Scopes, ",")
}

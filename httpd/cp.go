package httpd

import (
	"context"
	"encoding/json"
	"net/http"
)

// ControlPlane is the embedded proxy's control plane (API.md §10): the
// tenants of a cell, their clusters (each one broker tenant), the proxy's
// API keys and each cluster's S3 sink. Its routes live under /api/cp/ and
// exist only when Options.CPToken is set; every request carries that token
// in x-queen-cp-token, checked before its body is read.
//
// Errors are *Error with the control plane's codes (CodeCP*); anything
// else maps as the data plane's errors do (a 503 timeout, for one).
type ControlPlane interface {
	// CreateTenant creates a tenant: 409 conflict when its slug is taken
	// (the one call that is not idempotent).
	CreateTenant(ctx context.Context, t CPTenantSpec) (CPTenant, error)
	// Tenants lists the tenants by slug; Tenant is one (404
	// tenant_unknown).
	Tenants(ctx context.Context) ([]CPTenant, error)
	Tenant(ctx context.Context, slug string) (CPTenant, error)
	// SetTenantStatus sets a tenant's status (CPStatus*).
	SetTenantStatus(ctx context.Context, slug, status string) (CPTenant, error)
	// PurgeTenant removes what the tenant's clusters hold (their queues,
	// keys and sinks) and keeps the tenant and its clusters;
	// DeleteTenant removes it all, the tenant and its clusters too.
	PurgeTenant(ctx context.Context, slug string) (CPPurge, error)
	DeleteTenant(ctx context.Context, slug string) (CPPurge, error)

	// EnsureCluster creates a cluster or answers the one there when it
	// matches (idempotent); one of another tenant is 409 conflict.
	EnsureCluster(ctx context.Context, slug string, c CPClusterSpec) (CPCluster, error)
	// Clusters lists the clusters ("" for every tenant's); Cluster is
	// one (404 cluster_unknown).
	Clusters(ctx context.Context, tenant string) ([]CPCluster, error)
	Cluster(ctx context.Context, slug string) (CPCluster, error)
	SetClusterStatus(ctx context.Context, slug, status string) (CPCluster, error)
	// DeleteCluster purges the cluster and removes it.
	DeleteCluster(ctx context.Context, slug string) (CPPurge, error)

	// RegisterKey stores a proxy API key for a cluster: the sha256 of
	// one the caller minted, or one minted here and answered once.
	RegisterKey(ctx context.Context, k CPKeySpec) (CPKey, error)
	// Keys lists a cluster's keys ("" for all), never the keys
	// themselves; RevokeKey removes one by its id (false: none).
	Keys(ctx context.Context, cluster string) ([]CPKey, error)
	RevokeKey(ctx context.Context, id string) (bool, error)

	// PutSink stores a cluster's S3 sink from the body of PUT
	// /api/cp/clusters/:slug/s3 (the settings document's fields, plus
	// secretKey and enabled) and answers it without its secret; Sink is
	// the stored one (404 s3_unset); DeleteSink removes it (false:
	// there was none).
	PutSink(ctx context.Context, cluster string, body []byte) (CPSink, error)
	Sink(ctx context.Context, cluster string) (CPSink, error)
	DeleteSink(ctx context.Context, cluster string) (bool, error)
}

// The control plane's error codes (API.md §10), beside CodeUnauthorized
// (401), CodeForbidden (403), payload_too_large (413) and bad_body (400).
const (
	CodeCPConflict         = "conflict"            // 409: the slug is taken, or names another tenant's cluster
	CodeCPTenantUnknown    = "tenant_unknown"      // 404
	CodeCPClusterUnknown   = "cluster_unknown"     // 404
	CodeCPKeyUnknown       = "key_unknown"         // 404
	CodeCPS3Unavailable    = "s3_unavailable"      // 404: this node does not run the sink (QUEEN_S3_EMBEDDED)
	CodeCPS3Unset          = "s3_unset"            // 404: the cluster has no sink
	CodeCPInvalid          = "invalid"             // 400: a setting the sink refuses, in the sink's own sentence
	CodeCPSystemTenant     = "system_tenant"       // 409: the cluster's broker tenant is the default one
	CodeCPDeleting         = "deleting"            // 409: the cluster or its tenant is being deleted
	CodeCPEncryptionNeeded = "encryption_required" // 409: no QUEEN_ENCRYPTION_KEY to seal the secret with
	CodeCPClusterSuspended = "cluster_suspended"   // 403: a key of a suspended cluster
	CodeCPPushBlocked      = "push_blocked"        // 403: a push with a key of a push_blocked cluster
	CodeCPScopeUnknown     = "scope_unknown"       // 400: a key registered with a scope there is not
	CodeCPInvalidStatus    = "invalid_status"      // 400: a status there is not
	CodeCPBadSlug          = "invalid_slug"        // 400: a slug that is not a DNS label
)

// The statuses of tenants and clusters. A cluster's effective status is
// the worse of its own and its tenant's, in this order from best to worst.
const (
	CPStatusActive      = "active"
	CPStatusPushBlocked = "push_blocked"
	CPStatusSuspended   = "suspended"
	CPStatusDeleting    = "deleting"
)

// CPTenantSpec is the body of POST /api/cp/tenants.
type CPTenantSpec struct {
	Slug string
	Name string // "" for the slug
}

// CPTenant is a tenant of the cell.
type CPTenant struct {
	Slug      string `json:"slug"`
	Name      string `json:"name"`
	Status    string `json:"status"`
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
	// Clusters are the tenant's cluster slugs, sorted.
	Clusters []string `json:"clusters"`
}

// CPClusterSpec is the body of PUT /api/cp/clusters/:slug.
type CPClusterSpec struct {
	Tenant string // the tenant's slug
	// BrokerTenant is the broker tenant (UUID) the cluster's data lives
	// under; "" mints one (the default tenant on a broker without
	// tenancy).
	BrokerTenant string
}

// CPCluster is a cluster: one broker tenant of a tenant.
type CPCluster struct {
	Slug         string `json:"slug"`
	Tenant       string `json:"tenant"`
	BrokerTenant string `json:"brokerTenant"`
	Status       string `json:"status"`
	// Effective is the worse of Status and the tenant's status: what the
	// data plane and the sink obey.
	Effective string `json:"effectiveStatus"`
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
}

// CPKeySpec is the body of POST /api/cp/keys.
type CPKeySpec struct {
	Cluster string
	Scopes  []string // CPScope*
	// Env is the key's environment label (qk_<env>_…): [a-z0-9]{1,16},
	// "live" when empty.
	Env string
	// Hash is the sha256 (64 hex digits) of a key the caller minted; ""
	// mints one here.
	Hash string
}

// The scopes of a proxy API key (API.md §10).
const (
	CPScopeProduce = "produce" // push, transaction; KV, timers, locks
	CPScopeConsume = "consume" // pop, ack, lease; KV, timers, locks
	CPScopeAdmin   = "admin"   // configure, deletes, seeks, DLQ replay
	CPScopeRead    = "read"    // the read-only routes
)

// CPKey is a registered key. Key is set only in the answer that minted it.
type CPKey struct {
	ID        string   `json:"id"`
	Cluster   string   `json:"cluster"`
	Scopes    []string `json:"scopes"`
	Env       string   `json:"env"`
	CreatedAt string   `json:"createdAt"`
	Key       string   `json:"key,omitempty"`
}

// CPSink is a cluster's S3 sink as PUT and GET answer it: never the
// secret, only whether one is stored.
type CPSink struct {
	Cluster      string          `json:"cluster"`
	Tenant       string          `json:"tenant"`
	Enabled      bool            `json:"enabled"`
	Config       json.RawMessage `json:"config"`
	SecretKeySet bool            `json:"secretKeySet"`
	UpdatedAt    string          `json:"updatedAt"`
}

// CPPurge is what a purge or a delete removed.
type CPPurge struct {
	Tenant   string   `json:"tenant,omitempty"`
	Cluster  string   `json:"cluster,omitempty"`
	Clusters []string `json:"clusters"`
	Queues   int      `json:"queues"`
	Keys     int      `json:"keys"`
	Sinks    int      `json:"sinks"`
	Removed  bool     `json:"removed"`
}

// cpError is a control-plane refusal.
func cpError(status int, code, msg string) *Error {
	return &Error{Status: status, Code: code, Message: msg}
}

// CPError is a control-plane refusal with the contract's code, for
// implementations of ControlPlane.
func CPError(status int, code, msg string) *Error { return cpError(status, code, msg) }

// cpUnauthorized is the answer to a wrong or missing x-queen-cp-token.
var cpUnauthorized = cpError(http.StatusUnauthorized, CodeUnauthorized, "x-queen-cp-token is missing or wrong")

package controlplane

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/queen/internal/seal"
	"github.com/queen-mq/queen-go/queen/internal/sinks"
)

// Queues is what a purge needs of the broker: a tenant's queues, and
// deleting one (httpd.Admin's signatures, which *broker.Broker has).
type Queues interface {
	Queues(ctx context.Context, tenant string) ([]httpd.QueueSummary, error)
	DeleteQueue(ctx context.Context, tenant, queue string) (httpd.QueueDeleted, bool, error)
}

// Options configure New.
type Options struct {
	// KV holds the rows (in SystemTenant).
	KV *kvstore.Store
	// Sealer seals the sinks' secrets (nil: no QUEEN_ENCRYPTION_KEY, so a
	// PUT with a secret answers 409 encryption_required).
	Sealer *seal.Sealer
	// TenancyHeader is QUEEN_TENANCY_HEADER: off, every cluster is the
	// default tenant's, and no cluster can have a sink of its own.
	TenancyHeader bool
	// S3Embedded is QUEEN_S3_EMBEDDED: off, the /s3 routes answer 404
	// s3_unavailable.
	S3Embedded bool
	// Queues deletes a purged cluster's queues (nil: a purge keeps them).
	Queues Queues
	// Now is the wall clock of createdAt and updatedAt (nil: time.Now).
	Now func() time.Time
}

// Plane is the control plane: httpd.ControlPlane over the replicated KV,
// and the source of the per-tenant sinks and of the proxy keys' checks.
type Plane struct {
	o  Options
	kv kv
	// keys caches key checks for keyCacheTTL (see Authenticate).
	keys *keyCache
}

var (
	_ httpd.ControlPlane  = (*Plane)(nil)
	_ sinks.Source        = (*Plane)(nil)
	_ httpd.Authenticator = (*Plane)(nil)
)

// New returns the control plane over o.KV.
func New(o Options) *Plane {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Plane{o: o, kv: kv{store: o.KV}, keys: newKeyCache()}
}

func (p *Plane) nowUs() int64 { return p.o.Now().UnixMicro() }

// later is a row's next updatedAt: now, or one past the last when the
// clock stands behind it, so that it moves on every write.
func (p *Plane) later(last int64) int64 { return max(p.nowUs(), last+1) }

// iso renders µs as the engine renders times (API.md §0): ISO-8601 UTC,
// six fractional digits, Z.
func iso(us int64) string { return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000Z") }

func tenantUnknown(slug string) error {
	return httpd.CPError(http.StatusNotFound, httpd.CodeCPTenantUnknown, "tenant "+slug+" does not exist")
}

func clusterUnknown(slug string) error {
	return httpd.CPError(http.StatusNotFound, httpd.CodeCPClusterUnknown, "cluster "+slug+" does not exist")
}

func deleting(what string) error {
	return httpd.CPError(http.StatusConflict, httpd.CodeCPDeleting, what+" is being deleted")
}

// casTries bounds a read-modify-write that keeps losing to other writers.
const casTries = 8

// errBusy is the answer when casTries were not enough.
var errBusy = httpd.CPError(http.StatusServiceUnavailable, httpd.CodeRetry, "the row kept changing under this write; retry")

// CreateTenant creates a tenant; a taken slug is 409 conflict.
func (p *Plane) CreateTenant(ctx context.Context, spec httpd.CPTenantSpec) (httpd.CPTenant, error) {
	now := p.nowUs()
	row := tenantRow{Name: spec.Name, Status: httpd.CPStatusActive, CreatedAtUs: now, UpdatedAtUs: now}
	if row.Name == "" {
		row.Name = spec.Slug
	}
	ok, err := p.kv.write(ctx, putOp(tenantPrefix+spec.Slug, row, 0))
	if err != nil {
		return httpd.CPTenant{}, err
	}
	if !ok {
		return httpd.CPTenant{}, httpd.CPError(http.StatusConflict, httpd.CodeCPConflict, "tenant "+spec.Slug+" exists")
	}
	return tenantOut(spec.Slug, row, nil), nil
}

func tenantOut(slug string, r tenantRow, clusters []string) httpd.CPTenant {
	if clusters == nil {
		clusters = []string{}
	}
	return httpd.CPTenant{Slug: slug, Name: r.Name, Status: r.Status, CreatedAt: iso(r.CreatedAtUs), UpdatedAt: iso(r.UpdatedAtUs),
		Clusters: clusters}
}

// Tenants lists every tenant, with its clusters.
func (p *Plane) Tenants(ctx context.Context) ([]httpd.CPTenant, error) {
	rows, ts, err := listAs[tenantRow](ctx, p.kv, tenantPrefix)
	if err != nil {
		return nil, err
	}
	cs, err := p.clusters(ctx)
	if err != nil {
		return nil, err
	}
	by := map[string][]string{}
	for _, c := range cs {
		by[c.row.Tenant] = append(by[c.row.Tenant], c.slug)
	}
	out := make([]httpd.CPTenant, len(ts))
	for i, t := range ts {
		slug := strings.TrimPrefix(rows[i].Key, tenantPrefix)
		out[i] = tenantOut(slug, t, by[slug])
	}
	return out, nil
}

// Tenant is one tenant, with its clusters.
func (p *Plane) Tenant(ctx context.Context, slug string) (httpd.CPTenant, error) {
	t, cs, err := p.tenantClusters(ctx, slug)
	if err != nil {
		return httpd.CPTenant{}, err
	}
	var mine []string
	for _, c := range cs {
		mine = append(mine, c.slug)
	}
	return tenantOut(slug, t, mine), nil
}

// SetTenantStatus sets a tenant's status; a tenant being deleted keeps
// its status (409 deleting).
func (p *Plane) SetTenantStatus(ctx context.Context, slug, status string) (httpd.CPTenant, error) {
	for range casTries {
		var t tenantRow
		v, ok, err := p.kv.get(ctx, tenantPrefix+slug, &t)
		if err != nil {
			return httpd.CPTenant{}, err
		}
		if !ok {
			return httpd.CPTenant{}, tenantUnknown(slug)
		}
		if t.Status == httpd.CPStatusDeleting && status != httpd.CPStatusDeleting {
			return httpd.CPTenant{}, deleting("tenant " + slug)
		}
		t.Status, t.UpdatedAtUs = status, p.later(t.UpdatedAtUs)
		applied, err := p.kv.write(ctx, putOp(tenantPrefix+slug, t, v))
		if err != nil {
			return httpd.CPTenant{}, err
		}
		if applied {
			p.keys.flush()
			return p.Tenant(ctx, slug)
		}
	}
	return httpd.CPTenant{}, errBusy
}

// cluster is a cluster's slug, row and version.
type cluster struct {
	slug    string
	row     clusterRow
	version uint64
}

// clusters lists every cluster, by slug.
func (p *Plane) clusters(ctx context.Context) ([]cluster, error) {
	rows, cs, err := listAs[clusterRow](ctx, p.kv, clusterPrefix)
	if err != nil {
		return nil, err
	}
	out := make([]cluster, len(cs))
	for i, c := range cs {
		out[i] = cluster{slug: strings.TrimPrefix(rows[i].Key, clusterPrefix), row: c, version: rows[i].Version}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].slug < out[j].slug })
	return out, nil
}

// clustersAndStatuses is clusters and tenantStatuses: what a listing of
// clusters or of sinks shows.
func (p *Plane) clustersAndStatuses(ctx context.Context) ([]cluster, map[string]string, error) {
	cs, err := p.clusters(ctx)
	if err != nil {
		return nil, nil, err
	}
	ts, err := p.tenantStatuses(ctx)
	return cs, ts, err
}

// tenantStatuses maps every tenant's slug to its status.
func (p *Plane) tenantStatuses(ctx context.Context) (map[string]string, error) {
	rows, ts, err := listAs[tenantRow](ctx, p.kv, tenantPrefix)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(ts))
	for i, t := range ts {
		m[strings.TrimPrefix(rows[i].Key, tenantPrefix)] = t.Status
	}
	return m, nil
}

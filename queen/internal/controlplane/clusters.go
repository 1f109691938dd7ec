package controlplane

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/kvstore"
)

// clusterOut renders a cluster, its effective status the worse of its own
// and its tenant's (tenantStatus).
func clusterOut(slug string, c clusterRow, tenantStatus string) httpd.CPCluster {
	return httpd.CPCluster{Slug: slug, Tenant: c.Tenant, BrokerTenant: c.BrokerTenant, Status: c.Status,
		Effective: worse(c.Status, tenantStatus), CreatedAt: iso(c.CreatedAtUs), UpdatedAt: iso(c.UpdatedAtUs)}
}

// lookup reads a cluster and its tenant's status: 404 cluster_unknown
// when there is none.
func (p *Plane) lookup(ctx context.Context, slug string) (cluster, string, error) {
	c := cluster{slug: slug}
	v, ok, err := p.kv.get(ctx, clusterPrefix+slug, &c.row)
	if err != nil {
		return c, "", err
	}
	if !ok {
		return c, "", clusterUnknown(slug)
	}
	c.version = v
	var t tenantRow
	if _, ok, err := p.kv.get(ctx, tenantPrefix+c.row.Tenant, &t); err != nil {
		return c, "", err
	} else if !ok {
		// A tenant's delete removes its clusters first; one left behind
		// by a delete cut short is on its way out.
		t.Status = httpd.CPStatusDeleting
	}
	return c, t.Status, nil
}

// EnsureCluster creates a cluster of a tenant, or answers the one there.
//
// The broker tenant is the one given, or a fresh UUID; on a broker
// without tenancy it is always the default tenant, the only one a
// request can reach there (so such a broker has one cluster at most). No
// two clusters share a broker tenant: a b/ row, written in the same call
// as the cluster's, holds it; a b/ row whose cluster is gone (a delete
// cut short) is taken over. A cluster being deleted is 409 deleting.
func (p *Plane) EnsureCluster(ctx context.Context, slug string, spec httpd.CPClusterSpec) (httpd.CPCluster, error) {
	bt, err := p.brokerTenant(spec.BrokerTenant)
	if err != nil {
		return httpd.CPCluster{}, err
	}
	for range casTries {
		c, tstatus, err := p.lookup(ctx, slug)
		if err == nil {
			if worse(c.row.Status, tstatus) == httpd.CPStatusDeleting {
				return httpd.CPCluster{}, deleting("cluster " + slug)
			}
			if c.row.Tenant != spec.Tenant || (spec.BrokerTenant != "" && c.row.BrokerTenant != bt) {
				return httpd.CPCluster{}, httpd.CPError(http.StatusConflict, httpd.CodeCPConflict,
					"cluster "+slug+" exists, of tenant "+c.row.Tenant+" with broker tenant "+c.row.BrokerTenant)
			}
			return clusterOut(slug, c.row, tstatus), nil
		}
		if !isCode(err, httpd.CodeCPClusterUnknown) {
			return httpd.CPCluster{}, err
		}
		var t tenantRow
		tv, ok, err := p.kv.get(ctx, tenantPrefix+spec.Tenant, &t)
		if err != nil {
			return httpd.CPCluster{}, err
		}
		if !ok {
			return httpd.CPCluster{}, tenantUnknown(spec.Tenant)
		}
		if t.Status == httpd.CPStatusDeleting {
			return httpd.CPCluster{}, deleting("tenant " + spec.Tenant)
		}
		if bt == "" {
			bt = uuid.NewString()
		}
		now := p.nowUs()
		row := clusterRow{Tenant: spec.Tenant, BrokerTenant: bt, Status: httpd.CPStatusActive, CreatedAtUs: now, UpdatedAtUs: now}
		// The b/ row: absent, or left by a cluster that is gone.
		owner, bv, taken, err := p.brokerOwner(ctx, bt)
		if err != nil {
			return httpd.CPCluster{}, err
		}
		if taken && owner != slug {
			if _, _, err := p.lookup(ctx, owner); err == nil {
				if spec.BrokerTenant == "" && p.o.TenancyHeader {
					bt = "" // a minted one taken: mint another on the next try
					continue
				}
				return httpd.CPCluster{}, httpd.CPError(http.StatusConflict, httpd.CodeCPConflict,
					"broker tenant "+bt+" is cluster "+owner+"'s")
			} else if !isCode(err, httpd.CodeCPClusterUnknown) {
				return httpd.CPCluster{}, err
			}
		}
		ops := []kvstore.Op{putOp(clusterPrefix+slug, row, 0), checkOp(tenantPrefix+spec.Tenant, tv), putOp(brokerPrefix+bt, slug, bv)}
		applied, err := p.kv.write(ctx, ops...)
		if err != nil {
			return httpd.CPCluster{}, err
		}
		if applied {
			return clusterOut(slug, row, t.Status), nil
		}
	}
	return httpd.CPCluster{}, errBusy
}

// brokerTenant checks a cluster's broker tenant: "" (mint one) or a UUID
// in canonical form that is not the system tenant. Without tenancy it is
// the default tenant, whatever was asked.
func (p *Plane) brokerTenant(given string) (string, error) {
	if !p.o.TenancyHeader {
		if given != "" && given != httpd.DefaultTenant {
			return "", httpd.CPError(http.StatusBadRequest, httpd.CodeBadRequest, "brokerTenant "+quote(given)+
				" needs QUEEN_TENANCY_HEADER=true: without tenancy every cluster is the default tenant "+httpd.DefaultTenant)
		}
		return httpd.DefaultTenant, nil
	}
	if given == "" {
		return "", nil
	}
	id, err := uuid.Parse(given)
	if err != nil || id.String() != given {
		return "", httpd.CPError(http.StatusBadRequest, httpd.CodeBadRequest, "brokerTenant "+quote(given)+" is not a lower-case UUID")
	}
	switch given {
	case SystemTenant:
		return "", httpd.CPError(http.StatusBadRequest, httpd.CodeBadRequest, "brokerTenant "+SystemTenant+" is the control plane's own")
	case httpd.DefaultTenant:
		return "", httpd.CPError(http.StatusBadRequest, httpd.CodeBadRequest, "brokerTenant "+httpd.DefaultTenant+
			" is the default tenant, every request's that names none: with tenancy a cluster's tenant is its own")
	}
	return given, nil
}

// brokerOwner is the cluster that holds broker tenant bt, and its b/
// row's version (0: none).
func (p *Plane) brokerOwner(ctx context.Context, bt string) (string, uint64, bool, error) {
	var owner string
	v, ok, err := p.kv.get(ctx, brokerPrefix+bt, &owner)
	return owner, v, ok, err
}

// Clusters lists the clusters, of one tenant or ("") of all.
func (p *Plane) Clusters(ctx context.Context, tenant string) ([]httpd.CPCluster, error) {
	cs, ts, err := p.clustersAndStatuses(ctx)
	if err != nil {
		return nil, err
	}
	if tenant != "" {
		if _, ok := ts[tenant]; !ok {
			return nil, tenantUnknown(tenant)
		}
	}
	out := []httpd.CPCluster{}
	for _, c := range cs {
		if tenant == "" || c.row.Tenant == tenant {
			st, ok := ts[c.row.Tenant]
			if !ok {
				st = httpd.CPStatusDeleting
			}
			out = append(out, clusterOut(c.slug, c.row, st))
		}
	}
	return out, nil
}

// Cluster is one cluster.
func (p *Plane) Cluster(ctx context.Context, slug string) (httpd.CPCluster, error) {
	c, tstatus, err := p.lookup(ctx, slug)
	if err != nil {
		return httpd.CPCluster{}, err
	}
	return clusterOut(slug, c.row, tstatus), nil
}

// SetClusterStatus sets a cluster's own status.
func (p *Plane) SetClusterStatus(ctx context.Context, slug, status string) (httpd.CPCluster, error) {
	for range casTries {
		c, tstatus, err := p.lookup(ctx, slug)
		if err != nil {
			return httpd.CPCluster{}, err
		}
		if c.row.Status == httpd.CPStatusDeleting {
			return httpd.CPCluster{}, deleting("cluster " + slug)
		}
		c.row.Status, c.row.UpdatedAtUs = status, p.later(c.row.UpdatedAtUs)
		applied, err := p.kv.write(ctx, putOp(clusterPrefix+slug, c.row, c.version))
		if err != nil {
			return httpd.CPCluster{}, err
		}
		if applied {
			p.keys.flush()
			return clusterOut(slug, c.row, tstatus), nil
		}
	}
	return httpd.CPCluster{}, errBusy
}

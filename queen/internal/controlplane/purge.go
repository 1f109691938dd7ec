package controlplane

import (
	"context"
	"time"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/kvstore"
)

// purgeCluster removes what a cluster holds: its sink row, its keys and,
// unless its broker tenant is the default tenant (the broker's own, on a
// broker without tenancy), every queue of its broker tenant. Nothing is
// deleted from a bucket. The broker tenant's KV rows, locks and timers
// stay (see doc.go).
func (p *Plane) purgeCluster(ctx context.Context, c cluster, ownsTenant bool, out *httpd.CPPurge) error {
	if removed, err := p.deleteRow(ctx, sinkPrefix+c.slug); err != nil {
		return err
	} else if removed {
		out.Sinks++
	}
	rows, ks, err := listAs[keyRow](ctx, p.kv, keyPrefix)
	if err != nil {
		return err
	}
	for i, k := range ks {
		if k.Cluster != c.slug {
			continue
		}
		if removed, err := p.deleteRow(ctx, rows[i].Key); err != nil {
			return err
		} else if removed {
			out.Keys++
		}
	}
	p.keys.flush()
	if p.o.Queues == nil || !ownsTenant || c.row.BrokerTenant == httpd.DefaultTenant {
		return nil
	}
	// Twice: a push that passed a node's key check before the cluster's
	// status changed may land after the first listing. Each listing
	// follows a linearizable read, so this node's state has everything
	// answered before it.
	for range 2 {
		if _, _, err := p.kv.get(ctx, clusterPrefix+c.slug, new(clusterRow)); err != nil {
			return err
		}
		qs, err := p.o.Queues.Queues(ctx, c.row.BrokerTenant)
		if err != nil {
			return err
		}
		for _, q := range qs {
			if _, found, err := p.o.Queues.DeleteQueue(ctx, c.row.BrokerTenant, q.Name); err != nil {
				return err
			} else if found {
				out.Queues++
			}
		}
		if len(qs) == 0 {
			break
		}
	}
	return nil
}

// markDeleting sets a cluster's status to deleting, so that no key, sink
// or write reaches it while it is taken apart.
func (p *Plane) markDeleting(ctx context.Context, slug string) (cluster, bool, error) {
	for range casTries {
		c, _, err := p.lookup(ctx, slug)
		if isCode(err, httpd.CodeCPClusterUnknown) {
			return c, false, nil
		}
		if err != nil {
			return c, false, err
		}
		if c.row.Status == httpd.CPStatusDeleting {
			return c, true, nil
		}
		c.row.Status, c.row.UpdatedAtUs = httpd.CPStatusDeleting, p.later(c.row.UpdatedAtUs)
		applied, err := p.kv.write(ctx, putOp(clusterPrefix+slug, c.row, c.version))
		if err != nil {
			return c, false, err
		}
		if applied {
			p.keys.flush() // and read it again, for the version written
		}
	}
	return cluster{}, false, errBusy
}

// DeleteCluster takes a cluster apart: status deleting, purged, then its
// rows removed. Removed is false when there was no such cluster.
func (p *Plane) DeleteCluster(ctx context.Context, slug string) (httpd.CPPurge, error) {
	out := httpd.CPPurge{Cluster: slug, Clusters: []string{}}
	return out, p.deleteCluster(ctx, slug, &out)
}

func (p *Plane) deleteCluster(ctx context.Context, slug string, out *httpd.CPPurge) error {
	for range casTries {
		c, found, err := p.markDeleting(ctx, slug)
		if err != nil || !found {
			return err
		}
		// Only the cluster the b/ row names owns the broker tenant's data:
		// a delete cut short may have left one that another took since.
		owner, bv, _, err := p.brokerOwner(ctx, c.row.BrokerTenant)
		if err != nil {
			return err
		}
		mine := owner == slug
		// Every node's key checks see the mark within keyCacheTTL: only
		// then are the broker tenant's queues listed.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(keyCacheTTL):
		}
		if err := p.purgeCluster(ctx, c, mine, out); err != nil {
			return err
		}
		// The cluster's row at the version marked, and its b/ row when it
		// is still this cluster's, in one call: all or nothing.
		ops := []kvstore.Op{deleteOp(clusterPrefix+slug, c.version)}
		if mine {
			ops = append(ops, deleteOp(brokerPrefix+c.row.BrokerTenant, bv))
		}
		applied, err := p.kv.write(ctx, ops...)
		if err != nil {
			return err
		}
		if applied {
			out.Clusters = append(out.Clusters, slug)
			out.Removed = true
			return nil
		}
	}
	return errBusy
}

// tenantClusters reads a tenant and lists its clusters: 404
// tenant_unknown when there is no such tenant.
func (p *Plane) tenantClusters(ctx context.Context, slug string) (tenantRow, []cluster, error) {
	var t tenantRow
	if _, ok, err := p.kv.get(ctx, tenantPrefix+slug, &t); err != nil {
		return t, nil, err
	} else if !ok {
		return t, nil, tenantUnknown(slug)
	}
	cs, err := p.clusters(ctx)
	if err != nil {
		return t, nil, err
	}
	var mine []cluster
	for _, c := range cs {
		if c.row.Tenant == slug {
			mine = append(mine, c)
		}
	}
	return t, mine, nil
}

// PurgeTenant empties every cluster of a tenant (purgeCluster) and keeps
// the tenant and its clusters.
func (p *Plane) PurgeTenant(ctx context.Context, slug string) (httpd.CPPurge, error) {
	out := httpd.CPPurge{Tenant: slug, Clusters: []string{}}
	_, cs, err := p.tenantClusters(ctx, slug)
	if err != nil {
		return out, err
	}
	for _, c := range cs {
		owner, _, _, err := p.brokerOwner(ctx, c.row.BrokerTenant)
		if err != nil {
			return out, err
		}
		if err := p.purgeCluster(ctx, c, owner == c.slug, &out); err != nil {
			return out, err
		}
		out.Clusters = append(out.Clusters, c.slug)
	}
	out.Removed = true
	return out, nil
}

// DeleteTenant takes a tenant apart: status deleting, each cluster
// deleted, then the tenant's row. Removed is false when there was no
// such tenant; a delete cut short is finished by the next one.
func (p *Plane) DeleteTenant(ctx context.Context, slug string) (httpd.CPPurge, error) {
	out := httpd.CPPurge{Tenant: slug, Clusters: []string{}}
	if _, err := p.SetTenantStatus(ctx, slug, httpd.CPStatusDeleting); isCode(err, httpd.CodeCPTenantUnknown) {
		return out, nil
	} else if err != nil {
		return out, err
	}
	_, cs, err := p.tenantClusters(ctx, slug)
	if err != nil {
		return out, err
	}
	for _, c := range cs {
		if err := p.deleteCluster(ctx, c.slug, &out); err != nil {
			return out, err
		}
	}
	if _, err := p.deleteRow(ctx, tenantPrefix+slug); err != nil {
		return out, err
	}
	out.Removed = true
	return out, nil
}

package controlplane

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/queen/internal/sinks"
	"github.com/queen-mq/queen-go/s3sink"
)

// MaxSecretBytes bounds a sink's secretKey (SINK-CONFIG.md §2b).
const MaxSecretBytes = 4096

func invalid(msg string) error { return httpd.CPError(http.StatusBadRequest, httpd.CodeCPInvalid, msg) }

// sinkCluster checks that this node runs the sink and that the cluster
// may have one: 404 s3_unavailable, 404 cluster_unknown, 409 deleting,
// 409 system_tenant.
func (p *Plane) sinkCluster(ctx context.Context, slug string, write bool) (cluster, error) {
	if !p.o.S3Embedded {
		return cluster{}, httpd.CPError(http.StatusNotFound, httpd.CodeCPS3Unavailable,
			"this node does not run the S3 sink: set QUEEN_S3_EMBEDDED=true on every node")
	}
	c, tstatus, err := p.lookup(ctx, slug)
	if err != nil {
		return c, err
	}
	if !write {
		return c, nil
	}
	if worse(c.row.Status, tstatus) == httpd.CPStatusDeleting {
		return c, deleting("cluster " + slug)
	}
	if !p.o.TenancyHeader || c.row.BrokerTenant == httpd.DefaultTenant {
		return c, httpd.CPError(http.StatusConflict, httpd.CodeCPSystemTenant, "cluster "+slug+" is the default tenant "+
			httpd.DefaultTenant+", whose sink is the QUEEN_S3_* environment's (a cluster has a sink of its own only with QUEEN_TENANCY_HEADER=true)")
	}
	return c, nil
}

func sinkOut(slug string, s sinkRow) httpd.CPSink {
	return httpd.CPSink{Cluster: slug, Tenant: s.BrokerTenant, Enabled: s.Enabled, Config: s.Config, SecretKeySet: len(s.SecretSealed) > 0,
		UpdatedAt: iso(s.UpdatedAtUs)}
}

// PutSink stores a cluster's sink. The settings are checked with the
// sink's own rules (s3sink.ParseDocument) before anything is stored; the
// secret is sealed under a fresh nonce and kept only so.
func (p *Plane) PutSink(ctx context.Context, slug string, body []byte) (httpd.CPSink, error) {
	c, err := p.sinkCluster(ctx, slug, true)
	if err != nil {
		return httpd.CPSink{}, err
	}
	doc, secret, hasSecret, enabled, err := splitSinkBody(body)
	if err != nil {
		return httpd.CPSink{}, err
	}
	if _, err := s3sink.ParseDocument(doc); err != nil {
		return httpd.CPSink{}, invalid(err.Error()) // the sink's own sentence (*s3sink.ConfigError)
	}
	var sealed []byte
	if hasSecret {
		if p.o.Sealer == nil {
			return httpd.CPSink{}, httpd.CPError(http.StatusConflict, httpd.CodeCPEncryptionNeeded,
				"this node has no QUEEN_ENCRYPTION_KEY to seal the secret with: set the same key on every node")
		}
		if sealed, err = p.o.Sealer.Seal([]byte(secret)); err != nil {
			return httpd.CPSink{}, err
		}
	}
	for range casTries {
		var old sinkRow
		v, ok, err := p.kv.get(ctx, sinkPrefix+slug, &old)
		if err != nil {
			return httpd.CPSink{}, err
		}
		row := sinkRow{ClusterID: slug, BrokerTenant: c.row.BrokerTenant, Enabled: enabled, Config: doc,
			SecretSealed: sealed, UpdatedAtUs: p.later(old.UpdatedAtUs)}
		if !hasSecret {
			if !ok || len(old.SecretSealed) == 0 {
				return httpd.CPSink{}, invalid("secretKey is required the first time a cluster's sink is stored")
			}
			row.SecretSealed = old.SecretSealed
		}
		applied, err := p.kv.write(ctx, putOp(sinkPrefix+slug, row, v), checkOp(clusterPrefix+slug, c.version))
		if err != nil {
			return httpd.CPSink{}, err
		}
		if applied {
			return sinkOut(slug, row), nil
		}
		if c, err = p.sinkCluster(ctx, slug, true); err != nil {
			return httpd.CPSink{}, err
		}
	}
	return httpd.CPSink{}, errBusy
}

// splitSinkBody takes secretKey and enabled out of a PUT's body, a JSON
// object: doc is the rest, the settings document, its members in the
// order sent. A member given twice is refused here, since a decoded map
// would keep only one of them.
func splitSinkBody(body []byte) (doc []byte, secret string, hasSecret, enabled bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, "", false, false, invalid("the body is not a JSON object of the sink's settings")
	}
	enabled = true
	seen := map[string]bool{}
	var out bytes.Buffer
	out.WriteByte('{')
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, "", false, false, invalid("the body is not a JSON object of the sink's settings")
		}
		name := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, "", false, false, invalid("the body is not a JSON object of the sink's settings")
		}
		if seen[name] {
			return nil, "", false, false, invalid(quote(name) + " is given twice")
		}
		seen[name] = true
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) && (name == "secretKey" || name == "enabled") {
			continue // null is unset, as the settings read it
		}
		switch name {
		case "secretKey":
			if err := json.Unmarshal(raw, &secret); err != nil || firstNonSpace(raw) != '"' || secret == "" || len(secret) > MaxSecretBytes {
				return nil, "", false, false, invalid("secretKey must be a string of 1 to 4096 bytes")
			}
			hasSecret = true
			continue
		case "enabled":
			switch strings.TrimSpace(string(raw)) {
			case "true":
			case "false":
				enabled = false
			default:
				return nil, "", false, false, invalid("enabled is not a boolean. It is `true` or `false`")
			}
			continue
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		key, _ := json.Marshal(name)
		out.Write(key)
		out.WriteByte(':')
		if err := json.Compact(&out, raw); err != nil {
			return nil, "", false, false, invalid("the body is not a JSON object of the sink's settings")
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, "", false, false, invalid("the body is not a JSON object of the sink's settings")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, "", false, false, invalid("the body holds more than one JSON value")
	}
	out.WriteByte('}')
	return out.Bytes(), secret, hasSecret, enabled, nil
}

func firstNonSpace(b []byte) byte {
	s := bytes.TrimSpace(b)
	if len(s) == 0 {
		return 0
	}
	return s[0]
}

// Sink is a cluster's stored sink: 404 s3_unset when it has none.
func (p *Plane) Sink(ctx context.Context, slug string) (httpd.CPSink, error) {
	if _, err := p.sinkCluster(ctx, slug, false); err != nil {
		return httpd.CPSink{}, err
	}
	var s sinkRow
	_, ok, err := p.kv.get(ctx, sinkPrefix+slug, &s)
	if err != nil {
		return httpd.CPSink{}, err
	}
	if !ok {
		return httpd.CPSink{}, httpd.CPError(http.StatusNotFound, httpd.CodeCPS3Unset, "cluster "+slug+" has no S3 sink")
	}
	return sinkOut(slug, s), nil
}

// DeleteSink removes a cluster's sink: false when it had none. Nothing
// is deleted from the bucket.
func (p *Plane) DeleteSink(ctx context.Context, slug string) (bool, error) {
	if _, err := p.sinkCluster(ctx, slug, false); err != nil {
		return false, err
	}
	return p.deleteRow(ctx, sinkPrefix+slug)
}

// deleteRow deletes key whatever its version: false when it was absent.
func (p *Plane) deleteRow(ctx context.Context, key string) (bool, error) {
	a, err := p.kv.do(ctx, deleteAny(key))
	if err != nil {
		return false, err
	}
	return a.Results[0].Applied, nil
}

// Units lists every stored sink, by cluster, as the nodes run them
// (sinks.Source).
func (p *Plane) Units(ctx context.Context) ([]sinks.Unit, error) {
	rows, ss, err := listAs[sinkRow](ctx, p.kv, sinkPrefix)
	if err != nil {
		return nil, err
	}
	cs, ts, err := p.clustersAndStatuses(ctx)
	if err != nil {
		return nil, err
	}
	status := map[string]string{}
	for _, c := range cs {
		st, ok := ts[c.row.Tenant]
		if !ok {
			st = httpd.CPStatusDeleting
		}
		status[c.slug] = worse(c.row.Status, st)
	}
	out := make([]sinks.Unit, len(ss))
	for i, s := range ss {
		slug := strings.TrimPrefix(rows[i].Key, sinkPrefix)
		st, ok := status[slug]
		out[i] = sinks.Unit{Cluster: slug, Tenant: s.BrokerTenant, Enabled: s.Enabled, Runnable: ok && runnable(st), Config: s.Config,
			SecretSealed: s.SecretSealed, UpdatedAtUs: s.UpdatedAtUs}
	}
	return out, nil
}

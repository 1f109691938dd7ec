package controlplane

import (
	"encoding/json"

	"github.com/queen-mq/queen-go/httpd"
)

// SystemTenant is the broker tenant that holds the control plane's rows:
// httpd.SystemTenant, which the tenancy header never lets a data-plane
// request name.
const SystemTenant = httpd.SystemTenant

// NS is the KV namespace of every control-plane row.
const NS = "queen-cp"

// The row keys, one prefix per kind. A slug is a DNS label and a hash is
// hex, so no key of one kind can pass for another's.
const (
	tenantPrefix  = "t/" // t/<tenant slug> → tenantRow
	clusterPrefix = "c/" // c/<cluster slug> → clusterRow
	brokerPrefix  = "b/" // b/<broker tenant> → the cluster slug that owns it (uniqueness)
	keyPrefix     = "k/" // k/<sha256 hex of the key> → keyRow
	sinkPrefix    = "s/" // s/<cluster slug> → sinkRow
)

// tenantRow is a tenant's row.
type tenantRow struct {
	Name        string `json:"name"`
	Status      string `json:"status"`
	CreatedAtUs int64  `json:"createdAtUs"`
	UpdatedAtUs int64  `json:"updatedAtUs"`
}

// clusterRow is a cluster's row.
type clusterRow struct {
	Tenant       string `json:"tenant"`
	BrokerTenant string `json:"brokerTenant"`
	Status       string `json:"status"`
	CreatedAtUs  int64  `json:"createdAtUs"`
	UpdatedAtUs  int64  `json:"updatedAtUs"`
}

// keyRow is a proxy API key's row; the key itself is never stored.
type keyRow struct {
	Cluster     string   `json:"cluster"`
	Scopes      []string `json:"scopes"`
	Env         string   `json:"env"`
	CreatedAtUs int64    `json:"createdAtUs"`
}

// sinkRow is a cluster's S3 sink (SINK-CONFIG.md §8: the row's fields as
// the product names them). SecretSealed is the secret key sealed with
// QUEEN_ENCRYPTION_KEY (seal.Sealer), never the secret itself.
type sinkRow struct {
	ClusterID    string          `json:"cluster_id"`
	BrokerTenant string          `json:"broker_tenant"`
	Enabled      bool            `json:"enabled"`
	Config       json.RawMessage `json:"config"`
	SecretSealed []byte          `json:"secret_key_sealed"`
	UpdatedAtUs  int64           `json:"updated_at_us"`
}

// statusRank orders statuses from best to worst.
func statusRank(s string) int {
	switch s {
	case httpd.CPStatusActive:
		return 0
	case httpd.CPStatusPushBlocked:
		return 1
	case httpd.CPStatusSuspended:
		return 2
	}
	return 3 // deleting, and anything unknown
}

// worse is the worse of two statuses.
func worse(a, b string) string {
	if statusRank(b) > statusRank(a) {
		return b
	}
	return a
}

// runnable reports whether a cluster of effective status s runs its sink
// and serves its keys: active or push_blocked.
func runnable(s string) bool { return statusRank(s) <= 1 }

package sinks

import (
	"context"
	"encoding/json"
)

// Unit is one control-plane tenant's sink as the control plane stores it.
type Unit struct {
	Cluster      string          // the control plane's cluster slug
	Tenant       string          // the broker tenant (UUID) whose queues it mirrors
	Enabled      bool            // false keeps the row but stops the sink
	Runnable     bool            // the worse of the cluster's and its tenant's status is active or push_blocked
	Config       json.RawMessage // the settings document (SINK-CONFIG §2b doc fields), as stored
	SecretSealed []byte          // the S3 secret key, sealed with QUEEN_ENCRYPTION_KEY (seal.Sealer.Seal)
	UpdatedAtUs  int64           // moves on every write of the row: a change rebuilds the sink
}

// Source lists every control-plane sink row (all tenants), read from the replicated KV.
type Source interface {
	Units(ctx context.Context) ([]Unit, error)
}

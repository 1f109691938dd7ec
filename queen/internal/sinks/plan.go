package sinks

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/queen-mq/queen-go/queen/internal/seal"
	"github.com/queen-mq/queen-go/s3sink"
)

// target is what a runner is to do: run settings (secret filled in), or
// nothing, with a refusal (phase error) or a reason (phase stopped).
type target struct {
	tenant   string
	settings *s3sink.Settings // nil: run nothing
	refusal  string           // phase error, this reason; "" otherwise
	why      string           // why nothing runs, for the log
	removed  bool             // the row is gone: the runner leaves once stopped
}

// stamp is what a control-plane target follows from: a row whose stamp
// has not moved gets no new target, so its document is parsed and its
// secret opened once per write of the row.
type stamp struct {
	tenant            string
	updatedAtUs       int64
	enabled, runnable bool
	gate              string // a refusal that follows from the other rows
}

func stampOf(u Unit, gate string) stamp {
	return stamp{tenant: u.Tenant, updatedAtUs: u.UpdatedAtUs, enabled: u.Enabled, runnable: u.Runnable, gate: gate}
}

// unitName names a control-plane sink in its refusals and log lines.
func unitName(u Unit) string {
	return fmt.Sprintf("the sink of cluster %q (tenant %q)", u.Cluster, u.Tenant)
}

// gates returns, by cluster, the refusals that follow from the rows
// around a row: a row naming no tenant or the default tenant, and rows
// naming one tenant from several clusters (a tenant has one sink; none of
// them runs, so that which one would is never a guess).
func gates(units []Unit) map[string]string {
	byTenant := map[string][]string{}
	for _, u := range units {
		byTenant[u.Tenant] = append(byTenant[u.Tenant], u.Cluster)
	}
	out := map[string]string{}
	for _, u := range units {
		switch clusters := byTenant[u.Tenant]; {
		case u.Tenant == "":
			out[u.Cluster] = "the row names no tenant"
		case u.Tenant == s3sink.DefaultTenant:
			out[u.Cluster] = "the default tenant's sink comes from the environment (QUEEN_S3_*), never from the control plane"
		case len(clusters) > 1:
			slices.Sort(clusters)
			out[u.Cluster] = fmt.Sprintf("tenant %q is named by the sinks of clusters %s: a tenant has one sink, so none of them runs",
				u.Tenant, strings.Join(clusters, ", "))
		}
	}
	return out
}

// plan turns a control-plane row into its target. The secret is opened
// only for a row that is to run, and only its plaintext goes into the
// settings: no refusal carries any of its bytes.
func plan(u Unit, gate string, sealer *seal.Sealer) target {
	t := target{tenant: u.Tenant}
	switch {
	case gate != "":
		t.refusal = unitName(u) + " does not run: " + gate
		return t
	case !u.Enabled:
		t.why = "disabled: its row has enabled false"
		return t
	case !u.Runnable:
		t.why = "its cluster or tenant is neither active nor push_blocked"
		return t
	}
	set, err := s3sink.ParseDocument(u.Config)
	if err != nil {
		t.refusal = unitName(u) + ": " + err.Error()
		return t
	}
	secret, err := openSecret(sealer, u.SecretSealed)
	if err != nil {
		t.refusal = unitName(u) + ": " + err.Error()
		return t
	}
	set.SecretKey = secret
	t.settings = set
	return t
}

// The refusals of a secret. None holds the secret's bytes.
var (
	errNoSecret = errors.New("no S3 secret key is stored for it; it is sealed with QUEEN_ENCRYPTION_KEY when the control plane stores it")
	errUnsealed = errors.New("its stored S3 secret key is not sealed: the control plane stores a secret only sealed with QUEEN_ENCRYPTION_KEY, so this one is refused")
	errNoKey    = errors.New("QUEEN_ENCRYPTION_KEY is not set on this node, so it cannot open the sealed S3 secret key; set the key the other nodes have")
	errWrongKey = errors.New("its S3 secret key does not open under this node's QUEEN_ENCRYPTION_KEY: every node needs the key that sealed it")
)

// openSecret opens a sealed secret. An unsealed value is refused, since
// seal.Sealer.Open would pass it through as it is.
func openSecret(sealer *seal.Sealer, sealed []byte) (string, error) {
	switch {
	case len(sealed) == 0:
		return "", errNoSecret
	case !seal.Sealed(sealed):
		return "", errUnsealed
	case sealer == nil:
		return "", errNoKey
	}
	plain, ok := sealer.Open(sealed)
	if !ok {
		return "", errWrongKey
	}
	return string(plain), nil
}

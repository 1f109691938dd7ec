package main

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The control plane of the node: its token, the key that seals a sink's
// secret, and the tenant and cluster that hold cpTenant.
const (
	cpToken   = "queen-compat-cp-token"
	cpSlug    = "compat"
	cpCluster = "compat-cp"
)

var cpKeyHex = strings.Repeat("c0", 32)

// pushNodeEnv is the push node's: tenancy on, so that the header names
// cpTenant; no control plane (its API keys would guard the data plane).
func pushNodeEnv() []string { return []string{"QUEEN_TENANCY_HEADER=true"} }

// cpNodeEnv turns on tenancy and the control plane for a control-plane
// lake's node, which runs cpTenant's sink from its row.
func cpNodeEnv() []string {
	return append(pushNodeEnv(), "QUEEN_PROXY_CP_TOKEN="+cpToken, "QUEEN_ENCRYPTION_KEY="+cpKeyHex)
}

// nodeSinkEnv is the node-wide sink environment of every lake's node; a
// control-plane lake's node has no QUEEN_S3_QUEUES, so it runs only the
// control plane's sinks.
func nodeSinkEnv() []string {
	return []string{"QUEEN_S3_EMBEDDED=true", "QUEEN_S3_SAFE_GUARD_MS=500", "QUEEN_S3_DISCOVERY_INTERVAL_MS=200",
		"QUEEN_S3_LEASE_TTL_MS=3000"}
}

// cp calls the control plane with body (raw JSON; none when nil).
func (n *queenNode) cp(method, path string, body []byte) error {
	return n.call(method, "/api/cp"+path, body, nil, "x-queen-cp-token", cpToken)
}

// cpSetup makes the tenant cpSlug and its cluster cpCluster, whose broker
// tenant is cpTenant (the records pushed under it before are then the
// cluster's). The node keeps them in its replicated KV: a later boot
// finds the tenant there (409 conflict) and the cluster ensured as it is.
func (n *queenNode) cpSetup() error {
	tenant, _ := json.Marshal(map[string]string{"slug": cpSlug})
	if err := n.cp(http.MethodPost, "/tenants", tenant); err != nil && !strings.Contains(err.Error(), `"code":"conflict"`) {
		return err
	}
	cluster, _ := json.Marshal(map[string]string{"tenant": cpSlug, "brokerTenant": cpTenant})
	return n.cp(http.MethodPut, "/clusters/"+cpCluster, cluster)
}

// cpPutSink stores the lake's sink as cpCluster's: every node runs it
// within about 5 s (the control plane's rows are read that often).
func (n *queenNode) cpPutSink(c combo, endpoint string) error {
	return n.cp(http.MethodPut, "/clusters/"+cpCluster+"/s3", c.cpBody(endpoint))
}

// cpDeleteSink removes cpCluster's sink row, so that the next boot runs no
// sink of the tenant until its own lake's is PUT.
func (n *queenNode) cpDeleteSink() error {
	return n.cp(http.MethodDelete, "/clusters/"+cpCluster+"/s3", nil)
}

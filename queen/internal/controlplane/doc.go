// Package controlplane is the embedded proxy's control plane (API.md §10):
// the tenants of a cell, their clusters, the proxy's API keys and each
// cluster's S3 sink, served by httpd under /api/cp/ when
// QUEEN_PROXY_CP_TOKEN is set.
//
// # What it owns
//
//   - Tenants (a customer: slug, name, status) and clusters (a tenant's
//     broker tenant: the UUID its queues, KV and lake live under). A
//     cluster's effective status is the worse of its own and its tenant's:
//     active, push_blocked, suspended, deleting.
//   - Proxy API keys, qk_<env>_<32 characters>: minted here and answered
//     once, or minted by the caller and registered by their sha256. Only
//     the sha256 is stored; CheckKey answers what a presented key grants
//     (its cluster's broker tenant, effective status and scopes), and
//     Authenticate makes that the data plane's credential
//     (httpd.Authenticator: keyauth.go maps the scopes onto the routes'
//     classes, binds the request to the key's tenant, and refuses a
//     suspended or push_blocked cluster's requests).
//   - Per-cluster S3 sinks: the settings document (checked with the sink's
//     own rules, s3sink.ParseDocument, before anything is stored), the
//     enabled switch, the secret key sealed with QUEEN_ENCRYPTION_KEY
//     (seal.Sealer: AES-256-GCM, a fresh nonce each time) and updatedAt.
//     Units lists them for the nodes that run them (sinks.Source).
//   - Purges: a cluster's sink row, keys and its broker tenant's queues.
//
// # Invariants
//
//   - Every row lives in the replicated KV of SystemTenant (the nil UUID,
//     which the tenancy header refuses, so no data-plane request reaches
//     it), namespace NS, under one prefix per kind: t/<tenant>,
//     c/<cluster>, b/<broker tenant> (which cluster holds it: no two
//     clusters share one), k/<sha256 of a key>, s/<cluster>.
//   - A write that depends on a row it read carries that row's version
//     (a put with expect, or a check): two control-plane calls racing on
//     one row never lose an update; the loser reads again (casTries).
//   - No answer, log line, status or metric carries a sink's secret or a
//     key: the secret is only ever stored sealed, a key only as its hash.
//   - Without tenancy (QUEEN_TENANCY_HEADER=false) every cluster is the
//     default tenant, whose sink is the QUEEN_S3_* environment's: a PUT of
//     its sink is 409 system_tenant, and a purge keeps its queues.
//   - updatedAt moves on every write of a sink row (later): a node that
//     sees it change rebuilds that tenant's sink.
//
// Left out: a purge keeps the broker tenant's KV rows, locks and timers.
//
// # Usage
//
//	plane := controlplane.New(controlplane.Options{KV: kv, Sealer: sealer,
//		TenancyHeader: true, S3Embedded: true, Queues: broker})
//	api := httpd.New(broker, httpd.Options{ControlPlane: plane, CPToken: token})
//
//	curl -X POST localhost:6632/api/cp/tenants -H "x-queen-cp-token: $T" -d '{"slug":"acme"}'
//	curl -X PUT localhost:6632/api/cp/clusters/acme-prod -H "x-queen-cp-token: $T" -d '{"tenant":"acme"}'
//	curl -X PUT localhost:6632/api/cp/clusters/acme-prod/s3 -H "x-queen-cp-token: $T" -d @sink.json
package controlplane

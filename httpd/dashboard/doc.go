// Package dashboard owns the broker's web dashboard: the page that
// GET / serves and its assets under GET /dashboard/, embedded in the
// binary (index.html, app.css, the scripts, and uPlot, the vendored
// chart library with its licence), so that the page works offline and
// needs no build step.
//
// Invariants:
//   - The page carries no data. Every datum the dashboard shows is read by
//     its scripts from the broker's HTTP API, with the same auth as any
//     client: the scripts send "Authorization: Bearer <token>" when the
//     person gave one (kept in sessionStorage), and show a token form on a
//     401 or 403 answer instead of data. So the shell and its assets can be
//     public while the API stays guarded.
//   - The scripts use only routes the API has: /health, /status,
//     /metrics, and under /api/v1 raft/members, status/queues,
//     consumer-groups, dlq (and its replay), resources/kv/namespaces.
//   - index.html is answered with Cache-Control: no-cache; every asset with
//     an ETag (its content's hash), answered 304 when If-None-Match names
//     it, so a new binary's assets are never read from a stale cache.
//   - Nothing is fetched from outside the broker: no CDN, no font.
//
// Usage, mounting it on a router (httpd registers both through its route
// table, as ClassPublic routes):
//
//	mux := http.NewServeMux()
//	mux.Handle("GET /{$}", dashboard.Index())
//	mux.Handle("GET /dashboard/", dashboard.Assets())
package dashboard

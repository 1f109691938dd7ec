package httpd

import (
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"
)

// routes registers the routes of one router, each with its access class:
// the route table. Every route is registered through add, which puts
// the gate in front of its handler (auth.go) and records its class;
// TestRouteClasses walks the router and fails on a route the table does
// not hold, so a route registered around add cannot go unguarded.
type routes struct {
	r      chi.Router
	prefix string // r's mount point, "" or "/api/v1"
	g      *gate
	// inner wraps each handler inside the gate (tenancy, for /api/v1):
	// a request is authenticated before anything else of it is read.
	inner func(http.Handler) http.Handler
	// classes is the table: "METHOD /full/pattern" → class, shared by
	// the routes of one New.
	classes map[string]Class
}

// add registers h for method and pattern, reachable by credentials that
// allow class c. It panics when the route is registered twice (a
// programmer's mistake at setup).
func (rt *routes) add(c Class, method, pattern string, h http.Handler) {
	key := method + " " + rt.prefix + pattern
	if _, dup := rt.classes[key]; dup {
		panic("httpd: route registered twice: " + key)
	}
	if c < ClassPublic || c > ClassControlPlane {
		panic(fmt.Sprintf("httpd: route %s has no access class", key))
	}
	rt.classes[key] = c
	if rt.inner != nil {
		h = rt.inner(h)
	}
	rt.r.Method(method, pattern, rt.g.guard(c, h))
}

// sub is a table over another router mounted at prefix, sharing this
// one's gate and table.
func (rt *routes) sub(r chi.Router, prefix string, inner func(http.Handler) http.Handler) *routes {
	return &routes{r: r, prefix: prefix, g: rt.g, inner: inner, classes: rt.classes}
}

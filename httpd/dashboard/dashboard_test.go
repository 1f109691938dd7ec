package dashboard

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestIndex: the page is HTML, no-cache, and names only assets Assets
// serves (no CDN, nothing outside the broker).
func TestIndex(t *testing.T) {
	w := httptest.NewRecorder()
	Index().ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 200 || w.Header().Get("Cache-Control") != "no-cache" || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %v", w.Code, w.Header())
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllStringSubmatch(w.Body.String(), -1)
	if len(refs) < 6 {
		t.Fatalf("index.html names %d assets: %v", len(refs), refs)
	}
	for _, m := range refs {
		name, ok := strings.CutPrefix(m[1], Prefix)
		if !ok || !slices.Contains(Names(), name) {
			t.Errorf("index.html names %q, which Assets does not serve", m[1])
		}
	}
}

// TestAssets: each asset has its type and an ETag, a matching
// If-None-Match answers 304 without a body, a changed one 200, and an
// unknown name or index.html 404.
func TestAssets(t *testing.T) {
	h := Assets()
	get := func(path, inm string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		if inm != "" {
			r.Header.Set("If-None-Match", inm)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for name, ctype := range map[string]string{"app.js": "text/javascript", "app.css": "text/css", "uPlot.iife.min.js": "text/javascript",
		"uPlot.min.css": "text/css"} {
		w := get(Prefix+name, "")
		etag := w.Header().Get("ETag")
		if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), ctype) || len(etag) < 10 || w.Body.Len() == 0 {
			t.Fatalf("GET %s: %d %v (%d bytes)", name, w.Code, w.Header(), w.Body.Len())
		}
		if w := get(Prefix+name, etag); w.Code != http.StatusNotModified || w.Body.Len() != 0 {
			t.Errorf("GET %s If-None-Match %s: %d, %d bytes", name, etag, w.Code, w.Body.Len())
		}
		if w := get(Prefix+name, `"other"`); w.Code != 200 {
			t.Errorf("GET %s with a stale ETag: %d", name, w.Code)
		}
	}
	for _, p := range []string{Prefix + "nope.js", Prefix + "index.html", Prefix, "/elsewhere/app.js"} {
		if w := get(p, ""); w.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, w.Code)
		}
	}
}

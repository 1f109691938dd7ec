package dashboard

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
)

//go:embed assets
var embedded embed.FS

// Prefix is the path under which Assets serves the files: index.html
// names them as Prefix + name.
const Prefix = "/dashboard/"

// asset is one embedded file with its content type and ETag.
type asset struct {
	body  []byte
	ctype string
	etag  string
}

// files are the embedded assets by name, read once.
var files = func() map[string]asset {
	m := map[string]asset{}
	err := fs.WalkDir(embedded, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := embedded.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		ct := mime.TypeByExtension(path.Ext(p))
		if ct == "" {
			ct = "text/plain; charset=utf-8"
		}
		m[strings.TrimPrefix(p, "assets/")] = asset{body: b, ctype: ct, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		panic("dashboard: read the embedded assets: " + err.Error())
	}
	return m
}()

// Names lists the embedded assets' names (index.html among them).
func Names() []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	return names
}

// Index serves the page, index.html, with Cache-Control: no-cache, on
// GET and HEAD whatever the path it is mounted at.
func Index() http.Handler {
	a := files["index.html"]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'")
		serve(w, r, a)
	})
}

// Assets serves the embedded file that the path names under Prefix, with
// its ETag (304 when If-None-Match names it) and Cache-Control: no-cache
// (revalidate each time, which the ETag makes cheap); 404 for any other
// path.
func Assets() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, Prefix)
		a, found := files[name]
		if !ok || !found || name == "index.html" {
			body := `{"error":"no such asset","code":"no_such_route"}` + "\n"
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, body)
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		serve(w, r, a)
	})
}

// serve writes a, or 304 when the request's If-None-Match names its ETag.
func serve(w http.ResponseWriter, r *http.Request, a asset) {
	h := w.Header()
	h.Set("ETag", a.etag)
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, t := range strings.Split(inm, ",") {
			if t = strings.TrimSpace(t); t == a.etag || t == "W/"+a.etag || t == "*" {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
	}
	h.Set("Content-Type", a.ctype)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(a.body)
	}
}

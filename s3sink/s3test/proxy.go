package s3test

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Proxy is a reverse proxy in front of an S3 server with faults a test
// switches on and off at any time, from any goroutine. It forwards the
// Host header unchanged, so SigV4 signatures made for the proxy's address
// still check at the server behind it.
type Proxy struct {
	URL string // http://127.0.0.1:<port>: point the store's Endpoint here

	rp     *httputil.ReverseProxy
	closed chan struct{}

	mu       sync.Mutex
	down     bool
	errs     int // 500s still to give; <0: every request
	cutAfter int // cut PUT bodies longer than this after that many bytes; <0: off
	slow     time.Duration
	counts   map[string]int
}

// FaultProxy starts a proxy in front of target (a server's URL) on a free
// port of 127.0.0.1, healthy; it stops at the test's cleanup.
func FaultProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		t.Fatalf("s3test: proxy target %q: not a URL", target)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	p := &Proxy{
		closed:   make(chan struct{}),
		cutAfter: -1,
		counts:   map[string]int{},
		rp: &httputil.ReverseProxy{
			Rewrite: func(pr *httputil.ProxyRequest) {
				pr.Out.URL.Scheme = u.Scheme
				pr.Out.URL.Host = u.Host
				pr.Out.Host = pr.In.Host // signed by the client
			},
			Transport: tr,
			ErrorLog:  log.New(io.Discard, "", 0),
		},
	}
	hs := httptest.NewServer(p)
	p.URL = hs.URL
	t.Cleanup(func() {
		close(p.closed) // ends the waits of Slow
		hs.Close()
		tr.CloseIdleConnections()
	})
	return p
}

// Down makes the proxy close every connection at once, answering nothing,
// as a server that is gone does (the client sees a transport error).
func (p *Proxy) Down() { p.set(func() { p.down = true }) }

// Errors answers the next n requests with 500 InternalError, without
// forwarding them; n < 0 answers every request so until Heal.
func (p *Proxy) Errors(n int) { p.set(func() { p.errs = n }) }

// CutUploads cuts the connection of every PUT (PutObject, UploadPart)
// whose body is longer than afterBytes, once afterBytes of it have come
// in, until Heal. The server behind never sees those requests.
func (p *Proxy) CutUploads(afterBytes int) { p.set(func() { p.cutAfter = max(afterBytes, 0) }) }

// Slow holds every request for d before handling it, until Heal.
func (p *Proxy) Slow(d time.Duration) { p.set(func() { p.slow = d }) }

// Heal turns every fault off; the counts stay.
func (p *Proxy) Heal() {
	p.set(func() { p.down, p.errs, p.cutAfter, p.slow = false, 0, -1, 0 })
}

// Count is how many requests with method came in, faulted or not.
func (p *Proxy) Count(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts[method]
}

// Counts is a copy of the request counts by method.
func (p *Proxy) Counts() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := make(map[string]int, len(p.counts))
	for k, v := range p.counts {
		m[k] = v
	}
	return m
}

func (p *Proxy) set(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f()
}

// ServeHTTP applies the faults that are on, in the order down, slow,
// errors, cut, and forwards what is left.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.counts[r.Method]++
	down, slow, cut := p.down, p.slow, p.cutAfter
	fail := p.errs != 0
	if p.errs > 0 {
		p.errs--
	}
	p.mu.Unlock()

	if down {
		// The server closes the connection with no answer, and does not
		// log it.
		panic(http.ErrAbortHandler)
	}
	if slow > 0 {
		timer := time.NewTimer(slow)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			return
		case <-p.closed:
			return
		}
	}
	if fail {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+
			`<Error><Code>InternalError</Code><Message>injected by s3test.Proxy</Message></Error>`)
		return
	}
	if cut >= 0 && r.Method == http.MethodPut && r.ContentLength > int64(cut) {
		_, _ = io.CopyN(io.Discard, r.Body, int64(cut))
		panic(http.ErrAbortHandler)
	}
	p.rp.ServeHTTP(w, r)
}

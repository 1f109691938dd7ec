package s3store_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/queen-mq/queen-go/s3sink"
	"github.com/queen-mq/queen-go/s3sink/internal/storetest"
	"github.com/queen-mq/queen-go/s3sink/s3store"
	"github.com/queen-mq/queen-go/s3sink/s3test"
)

// The store is the engine's ObjectStore: objstore.Store, which s3sink
// names ObjectStore.
var _ s3sink.ObjectStore = (*s3store.Store)(nil)

func mustNew(t testing.TB, s s3sink.Settings, o s3store.Options) *s3store.Store {
	t.Helper()
	st, err := s3store.New(context.Background(), s3test.StoreConfig(s), o)
	if err != nil {
		t.Fatalf("new store: %v", err)
	}
	return st
}

func TestConformanceFake(t *testing.T) {
	set := s3test.Fake(t).Bucket(t, "lake")
	storetest.Run(t, func(t *testing.T) s3sink.ObjectStore { return mustNew(t, set, s3store.Options{}) })
}

func TestConformanceVersitygw(t *testing.T) {
	set := s3test.Versitygw(t).Bucket(t, "lake")
	storetest.Run(t, func(t *testing.T) s3sink.ObjectStore { return mustNew(t, set, s3store.Options{}) })
}

// versitygw accepts SSE headers (and ignores them): the store must still
// write and read with them on.
func TestConformanceVersitygwSSE(t *testing.T) {
	set := s3test.Versitygw(t).Bucket(t, "lake")
	set.SSE, set.SSEKMSKeyID = "aws:kms", "arn:aws:kms:us-east-1:111122223333:key/test"
	storetest.Run(t, func(t *testing.T) s3sink.ObjectStore { return mustNew(t, set, s3store.Options{}) })
}

func TestNewRefuses(t *testing.T) {
	good := s3store.Config{Endpoint: "http://127.0.0.1:9000/", Region: "us-east-1", Bucket: "lake", AccessKey: "a", SecretKey: "s"}
	if _, err := s3store.New(context.Background(), good, s3store.Options{}); err != nil {
		t.Fatalf("good settings: %v", err)
	}
	for name, edit := range map[string]func(*s3store.Config){
		"endpoint scheme": func(s *s3store.Config) { s.Endpoint = "ftp://h" },
		"endpoint path":   func(s *s3store.Config) { s.Endpoint = "http://h/lake" },
		"endpoint empty":  func(s *s3store.Config) { s.Endpoint = "" },
		"bucket empty":    func(s *s3store.Config) { s.Bucket = "" },
		"bucket slash":    func(s *s3store.Config) { s.Bucket = "a/b" },
		"region":          func(s *s3store.Config) { s.Region = "" },
		"sse":             func(s *s3store.Config) { s.SSE = "DES" },
		"kms key alone":   func(s *s3store.Config) { s.SSE, s.SSEKMSKeyID = "AES256", "k" },
	} {
		s := good
		edit(&s)
		if _, err := s3store.New(context.Background(), s, s3store.Options{}); err == nil {
			t.Errorf("%s: New accepted %+v", name, s)
		}
	}
}

// recorder is a transport that keeps the headers of every request, by
// S3 operation as the store's Metrics names it.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req.Clone(context.Background()))
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (r *recorder) find(method string, match func(*http.Request) bool) []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*http.Request
	for _, q := range r.reqs {
		if q.Method == method && match(q) {
			out = append(out, q)
		}
	}
	return out
}

func TestHeaders(t *testing.T) {
	set := s3test.Fake(t).Bucket(t, "lake")
	for _, sse := range []struct{ sse, key string }{{"", ""}, {"AES256", ""}, {"aws:kms", ""}, {"aws:kms", "key-1"}} {
		rec := &recorder{}
		s := set
		s.SSE, s.SSEKMSKeyID = sse.sse, sse.key
		st := mustNew(t, s, s3store.Options{HTTPClient: &http.Client{Transport: rec}})
		ctx := context.Background()
		if err := st.Put(ctx, "h/put", []byte("hello")); err != nil {
			t.Fatal(err)
		}
		if err := st.PutMultipart(ctx, "h/mp", storetest.Bytes(1, 3000), 1024); err != nil {
			t.Fatal(err)
		}
		puts := rec.find("PUT", func(q *http.Request) bool { return q.URL.Query().Get("partNumber") == "" })
		parts := rec.find("PUT", func(q *http.Request) bool { return q.URL.Query().Get("partNumber") != "" })
		creates := rec.find("POST", func(q *http.Request) bool { return q.URL.Query().Has("uploads") })
		if len(puts) != 1 || len(parts) != 3 || len(creates) != 1 {
			t.Fatalf("sse %q: %d puts, %d parts, %d creates; want 1, 3, 1", sse.sse, len(puts), len(parts), len(creates))
		}
		if got := puts[0].Header.Get("Content-MD5"); got != "XUFAKrxLKna5cZ2REBfFkg==" {
			t.Errorf("put Content-MD5 %q", got)
		}
		for _, q := range parts {
			if q.Header.Get("Content-MD5") == "" {
				t.Errorf("part %s without Content-MD5", q.URL.Query().Get("partNumber"))
			}
			if q.Header.Get("X-Amz-Server-Side-Encryption") != "" {
				t.Errorf("part with an SSE header (S3 refuses it on UploadPart)")
			}
		}
		for _, q := range []*http.Request{puts[0], creates[0]} {
			if got := q.Header.Get("X-Amz-Server-Side-Encryption"); got != sse.sse {
				t.Errorf("%s %s: SSE header %q, want %q", q.Method, q.URL.Path, got, sse.sse)
			}
			if got := q.Header.Get("X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id"); got != sse.key {
				t.Errorf("%s %s: KMS key header %q, want %q", q.Method, q.URL.Path, got, sse.key)
			}
			if !strings.HasPrefix(q.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
				t.Errorf("%s %s: not signed with SigV4: %q", q.Method, q.URL.Path, q.Header.Get("Authorization"))
			}
		}
	}
}

func TestAccessDeniedVersitygw(t *testing.T) {
	srv := s3test.Versitygw(t)
	set := srv.Bucket(t, "lake")
	ctx := context.Background()
	if err := mustNew(t, set, s3store.Options{}).Put(ctx, "k", []byte("x")); err != nil {
		t.Fatal(err)
	}
	badSecret, badKey := set, set
	badSecret.SecretKey = "wrong"
	badKey.AccessKey = "nobody"
	for name, s := range map[string]s3sink.Settings{"secret": badSecret, "access key": badKey} {
		st := mustNew(t, s, s3store.Options{})
		checks := map[string]error{
			"put":       st.Put(ctx, "k", []byte("x")),
			"multipart": st.PutMultipart(ctx, "k", []byte("x"), 1),
			"probe":     st.Probe(ctx, "queen"),
		}
		_, checks["get"] = st.Get(ctx, "k")
		_, err := st.Head(ctx, "k")
		if s.AccessKey == badKey.AccessKey {
			// versitygw answers an unknown access key with 404
			// XAdminUserNotFound, and a HEAD answer has no code to tell.
			if !errors.Is(err, s3sink.ErrNotFound) {
				t.Errorf("wrong access key, head: %v, want versitygw's bare 404", err)
			}
		} else {
			checks["head"] = err
		}
		for op, err := range checks {
			if !errors.Is(err, s3sink.ErrAccessDenied) {
				t.Errorf("wrong %s, %s: %v, want ErrAccessDenied", name, op, err)
			}
		}
	}
}

func TestMissingBucket(t *testing.T) {
	for name, srv := range map[string]*s3test.Server{"fake": s3test.Fake(t), "versitygw": s3test.Versitygw(t)} {
		set := srv.Bucket(t, "lake")
		set.Bucket = "no-such-bucket"
		st := mustNew(t, set, s3store.Options{})
		ctx := context.Background()
		if err := st.Put(ctx, "k", []byte("x")); !errors.Is(err, s3sink.ErrNotFound) {
			t.Errorf("%s: put into a missing bucket: %v, want ErrNotFound", name, err)
		}
		if _, err := st.Get(ctx, "k"); !errors.Is(err, s3sink.ErrNotFound) {
			t.Errorf("%s: get from a missing bucket: %v, want ErrNotFound", name, err)
		}
		for _, prefix := range []string{"", "queen"} {
			if err := st.Probe(ctx, prefix); !errors.Is(err, s3sink.ErrNotFound) {
				t.Errorf("%s: probe %q of a missing bucket: %v, want ErrNotFound", name, prefix, err)
			}
		}
	}
}

func TestProbe(t *testing.T) {
	for name, srv := range map[string]*s3test.Server{"fake": s3test.Fake(t), "versitygw": s3test.Versitygw(t)} {
		st := mustNew(t, srv.Bucket(t, "lake"), s3store.Options{})
		ctx := context.Background()
		for _, prefix := range []string{"queen", "/queen/", "a/b", ""} {
			if err := st.Probe(ctx, prefix); err != nil {
				t.Errorf("%s: probe %q of an empty bucket: %v", name, prefix, err)
			}
		}
		if err := st.Put(ctx, "queen/x", []byte("x")); err != nil {
			t.Fatal(err)
		}
		if err := st.Probe(ctx, "queen"); err != nil {
			t.Errorf("%s: probe with objects under the prefix: %v", name, err)
		}
	}
}

// damaging flips a byte of every PUT body on the way to the server.
type damaging struct{}

func (damaging) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut && req.Body != nil && req.ContentLength > 0 {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body[len(body)/2] ^= 0xff
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	return http.DefaultTransport.RoundTrip(req)
}

// A body damaged on the way never becomes the object: Put's Content-MD5
// (and versitygw's payload hash check) refuse it.
func TestDamagedBody(t *testing.T) {
	for name, srv := range map[string]*s3test.Server{"fake": s3test.Fake(t), "versitygw": s3test.Versitygw(t)} {
		set := srv.Bucket(t, "lake")
		st := mustNew(t, set, s3store.Options{HTTPClient: &http.Client{Transport: damaging{}}})
		ctx := context.Background()
		err := st.Put(ctx, "k", storetest.Bytes(1, 1000))
		if err == nil {
			t.Fatalf("%s: put of a damaged body succeeded", name)
		}
		t.Logf("%s: %v", name, err)
		if _, err := mustNew(t, set, s3store.Options{}).Head(ctx, "k"); !errors.Is(err, s3sink.ErrNotFound) {
			t.Errorf("%s: after a damaged put: %v, want ErrNotFound", name, err)
		}
	}
}

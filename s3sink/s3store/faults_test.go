package s3store_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/queen-mq/queen-go/s3sink"
	"github.com/queen-mq/queen-go/s3sink/internal/storetest"
	"github.com/queen-mq/queen-go/s3sink/s3store"
	"github.com/queen-mq/queen-go/s3sink/s3test"
)

const mib = storetest.MiB

// faulty is a store behind a fault proxy, on a fresh bucket.
type faulty struct {
	srv   *s3test.Server
	set   s3sink.Settings
	proxy *s3test.Proxy
	st    *s3store.Store

	mu      sync.Mutex
	metrics []string // "<operation> <status>", in order
}

// eachServer runs f against gofakes3 and against versitygw.
func eachServer(t *testing.T, f func(t *testing.T, srv *s3test.Server)) {
	t.Run("fake", func(t *testing.T) { t.Parallel(); f(t, s3test.Fake(t)) })
	t.Run("versitygw", func(t *testing.T) { t.Parallel(); f(t, s3test.Versitygw(t)) })
}

func newFaulty(t *testing.T, srv *s3test.Server, bucket string) *faulty {
	f := &faulty{srv: srv, set: srv.Bucket(t, bucket)}
	f.proxy = s3test.FaultProxy(t, srv.URL)
	s := f.set
	s.Endpoint = f.proxy.URL
	f.st = mustNew(t, s, s3store.Options{Metrics: func(op string, status int) {
		f.mu.Lock()
		f.metrics = append(f.metrics, fmt.Sprintf("%s %d", op, status))
		f.mu.Unlock()
	}})
	return f
}

// takeMetrics returns the requests reported since the last call.
func (f *faulty) takeMetrics() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.metrics
	f.metrics = nil
	return m
}

// noUploadsLeft fails when the bucket holds a multipart upload, asked of
// the server directly.
func (f *faulty) noUploadsLeft(t *testing.T) {
	t.Helper()
	out, err := f.srv.Client().ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: aws.String(f.set.Bucket)})
	if err != nil {
		t.Fatalf("list multipart uploads: %v", err)
	}
	if len(out.Uploads) != 0 {
		t.Fatalf("%d multipart uploads left behind, first %s", len(out.Uploads), aws.ToString(out.Uploads[0].Key))
	}
}

// missing fails unless key is absent, asked through a healthy path.
func (f *faulty) missing(t *testing.T, key string) {
	t.Helper()
	if _, err := mustNew(t, f.set, s3store.Options{}).Head(context.Background(), key); !errors.Is(err, s3sink.ErrNotFound) {
		t.Fatalf("head %s: %v, want ErrNotFound (no object)", key, err)
	}
}

// transient fails unless err is an error of no class: one the sink backs
// off on.
func transient(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil || errors.Is(err, s3sink.ErrNotFound) || errors.Is(err, s3sink.ErrAccessDenied) {
		t.Fatalf("%s: %v, want a transient error", what, err)
	}
}

func TestDown(t *testing.T) {
	eachServer(t, func(t *testing.T, srv *s3test.Server) {
		f := newFaulty(t, srv, "lake")
		ctx := context.Background()
		f.proxy.Down()
		transient(t, "put", f.st.Put(ctx, "k", []byte("x")))
		if got := f.takeMetrics(); fmt.Sprint(got) != "[PutObject 0 PutObject 0 PutObject 0]" {
			t.Errorf("metrics of a put to a down bucket: %v", got)
		}
		transient(t, "multipart", f.st.PutMultipart(ctx, "k", []byte("x"), 1))
		_, err := f.st.Get(ctx, "k")
		transient(t, "get", err)
		_, err = f.st.Head(ctx, "k")
		transient(t, "head", err)
		transient(t, "probe", f.st.Probe(ctx, "queen"))
		f.proxy.Heal()
		if err := f.st.Probe(ctx, "queen"); err != nil {
			t.Fatalf("probe after heal: %v", err)
		}
		if err := f.st.Put(ctx, "k", []byte("x")); err != nil {
			t.Fatalf("put after heal: %v", err)
		}
	})
}

func TestErrors(t *testing.T) {
	eachServer(t, func(t *testing.T, srv *s3test.Server) {
		f := newFaulty(t, srv, "lake")
		ctx := context.Background()
		// Two 500s: the SDK's third attempt gets through.
		f.proxy.Errors(2)
		if err := f.st.Put(ctx, "k", []byte("x")); err != nil {
			t.Fatalf("put through two 500s: %v", err)
		}
		if got := f.takeMetrics(); fmt.Sprint(got) != "[PutObject 500 PutObject 500 PutObject 200]" {
			t.Errorf("metrics: %v", got)
		}
		// Every request: three attempts, then the error.
		f.proxy.Errors(-1)
		before := f.proxy.Count(http.MethodPut)
		transient(t, "put", f.st.Put(ctx, "k2", []byte("x")))
		if n := f.proxy.Count(http.MethodPut) - before; n != 3 {
			t.Errorf("%d PUT attempts, want 3", n)
		}
		_, err := f.st.Get(ctx, "k")
		transient(t, "get", err)
		transient(t, "multipart", f.st.PutMultipart(ctx, "k3", storetest.Bytes(1, 100), 10))
		f.proxy.Heal()
		f.missing(t, "k2")
		f.missing(t, "k3")
		f.takeMetrics()
		if _, err := f.st.Get(ctx, "missing"); !errors.Is(err, s3sink.ErrNotFound) {
			t.Fatalf("get of a missing key after heal: %v", err)
		}
		if got := f.takeMetrics(); fmt.Sprint(got) != "[GetObject 404]" {
			t.Errorf("metrics of a missing get: %v (a 404 is not retried)", got)
		}
	})
}

func TestCutUploads(t *testing.T) {
	eachServer(t, func(t *testing.T, srv *s3test.Server) {
		f := newFaulty(t, srv, "lake")
		ctx := context.Background()
		f.proxy.CutUploads(mib)
		transient(t, "put", f.st.Put(ctx, "single", storetest.Bytes(1, 2*mib)))
		// A small object passes: only bodies past the cut are cut.
		if err := f.st.Put(ctx, "small", []byte("x")); err != nil {
			t.Fatalf("small put under CutUploads: %v", err)
		}
		deletes := f.proxy.Count(http.MethodDelete)
		transient(t, "multipart", f.st.PutMultipart(ctx, "multi", storetest.Bytes(2, 3*5*mib+100), 5*mib))
		if f.proxy.Count(http.MethodDelete) == deletes {
			t.Errorf("no abort (DELETE) after a cut part")
		}
		f.proxy.Heal()
		f.missing(t, "single")
		f.missing(t, "multi")
		f.noUploadsLeft(t)
	})
}

// failing fails, at the transport, the requests match picks.
type failing struct {
	match func(*http.Request) bool
	mu    sync.Mutex
	seen  []string // method and query of every request
}

func (ft *failing) RoundTrip(req *http.Request) (*http.Response, error) {
	ft.mu.Lock()
	ft.seen = append(ft.seen, req.Method+" "+req.URL.RawQuery)
	ft.mu.Unlock()
	if ft.match(req) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, errors.New("injected transport failure")
	}
	return http.DefaultTransport.RoundTrip(req)
}

func TestMultipartStepFails(t *testing.T) {
	eachServer(t, func(t *testing.T, srv *s3test.Server) {
		f := newFaulty(t, srv, "lake")
		for name, match := range map[string]func(*http.Request) bool{
			"part 2": func(q *http.Request) bool { return q.URL.Query().Get("partNumber") == "2" },
			"complete": func(q *http.Request) bool {
				return q.Method == http.MethodPost && q.URL.Query().Has("uploadId")
			},
		} {
			ft := &failing{match: match}
			st := mustNew(t, f.set, s3store.Options{HTTPClient: &http.Client{Transport: ft}})
			key := "fails-at-" + name
			transient(t, name, st.PutMultipart(context.Background(), key, storetest.Bytes(3, 3*5*mib+100), 5*mib))
			aborted := false
			for _, s := range ft.seen {
				aborted = aborted || (len(s) > 7 && s[:7] == "DELETE ")
			}
			if !aborted {
				t.Errorf("%s: no abort among %v", name, ft.seen)
			}
			f.missing(t, key)
		}
		f.noUploadsLeft(t)
	})
}

func TestSlow(t *testing.T) {
	eachServer(t, func(t *testing.T, srv *s3test.Server) {
		f := newFaulty(t, srv, "lake")
		f.proxy.Slow(time.Minute)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if err := f.st.Put(ctx, "k", []byte("x")); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("put past its deadline: %v, want DeadlineExceeded", err)
		}
		ctx2, cancel2 := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel2()
		if err := f.st.PutMultipart(ctx2, "m", storetest.Bytes(4, 100), 10); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("multipart past its deadline: %v, want DeadlineExceeded", err)
		}
		f.proxy.Heal()
		if err := f.st.Put(context.Background(), "k", []byte("x")); err != nil {
			t.Fatalf("put after heal: %v", err)
		}
	})
}

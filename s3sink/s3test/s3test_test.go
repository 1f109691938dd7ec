package s3test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// fatalTB records the first Fatalf and stops the goroutine, as the real
// one does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fatalTB) Helper() {}

func TestVersitygwNotFoundFails(t *testing.T) {
	t.Chdir(t.TempDir()) // no go.work above: no .cache/bin
	t.Setenv("PATH", t.TempDir())
	t.Setenv(EnvVersitygw, "")
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); findVersitygw(f) }()
	<-done
	if !strings.Contains(f.msg, "make tools") {
		t.Fatalf("message %q does not name make tools", f.msg)
	}
}

func TestVersitygwStartsAndStops(t *testing.T) {
	var addr string
	t.Run("run", func(t *testing.T) {
		srv := Versitygw(t)
		addr = strings.TrimPrefix(srv.URL, "http://")
		srv.Bucket(t, "bucket-one")
		if _, err := srv.Client().HeadBucket(context.Background(), &s3.HeadBucketInput{Bucket: aws.String("bucket-one")}); err != nil {
			t.Fatalf("head bucket: %v", err)
		}
	})
	// The subtest's cleanup stopped the process: nothing listens there.
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatalf("versitygw still listens on %s after its test", addr)
	}
}

func TestProxy(t *testing.T) {
	srv := Fake(t)
	srv.Bucket(t, "bkt")
	p := FaultProxy(t, srv.URL)
	get := func() int {
		t.Helper()
		resp, err := http.Get(p.URL + "/bkt/missing")
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := get(); got != http.StatusNotFound {
		t.Fatalf("healthy: %d, want the server's 404", got)
	}
	p.Errors(2)
	if a, b, c := get(), get(), get(); a != 500 || b != 500 || c != 404 {
		t.Fatalf("Errors(2): %d %d %d, want 500 500 404", a, b, c)
	}
	p.Down()
	if got := get(); got != 0 {
		t.Fatalf("down: status %d, want no answer", got)
	}
	p.Heal()
	if got := get(); got != http.StatusNotFound {
		t.Fatalf("healed: %d", got)
	}
	if n := p.Count(http.MethodGet); n != 6 {
		t.Fatalf("counted %d GETs, want 6 (%v)", n, p.Counts())
	}
}

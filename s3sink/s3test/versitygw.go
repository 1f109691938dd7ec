package s3test

import (
	"testing"

	"github.com/queen-mq/queen-go/s3sink/s3test/versitygw"
)

// EnvVersitygw names the versitygw binary to run, ahead of
// <repo>/.cache/bin/versitygw (where `make tools` puts it) and PATH.
const EnvVersitygw = "QUEEN_VERSITYGW"

// Versitygw starts a versitygw process (posix backend on a temporary
// directory, single account) on a free port of 127.0.0.1 and stops it, by
// its pid, at the test's cleanup. A test that needs it and cannot find it
// fails: CI installs it with `make tools`, and a skip would hide that.
func Versitygw(t testing.TB) *Server {
	t.Helper()
	return VersitygwAs(t, "queen-test-access", "queen-test-secret-key")
}

// VersitygwAs is Versitygw whose one account has the given access key id
// and secret: two servers, two sets of credentials, as two tenants'
// buckets have.
func VersitygwAs(t testing.TB, access, secret string) *Server {
	t.Helper()
	bin := findVersitygw(t)
	s := &Server{Access: access, Secret: secret, Region: Region, Dir: t.TempDir()}
	p, err := versitygw.Start(versitygw.Options{Bin: bin, Root: s.Dir, Access: access, Secret: secret, Region: s.Region})
	if err != nil {
		t.Fatalf("s3test: %v", err)
	}
	// By its pid, and waited for, so that its directory can go.
	t.Cleanup(p.Stop)
	s.URL = p.URL
	return s
}

// findVersitygw finds the binary (versitygw.Find) and fails the test when
// none is there.
func findVersitygw(t testing.TB) string {
	t.Helper()
	bin, err := versitygw.Find(EnvVersitygw)
	if err != nil {
		t.Fatalf("s3test: %v", err)
	}
	return bin
}

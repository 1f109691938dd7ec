package versitygw

import (
	"net"
	"strings"
	"testing"
)

// TestFind: a variable that names no file is an error naming it; with
// nothing anywhere the error says what it tried and that `make tools`
// installs it.
func TestFind(t *testing.T) {
	t.Chdir(t.TempDir()) // no go.work above: no .cache/bin
	t.Setenv("PATH", t.TempDir())
	t.Setenv("VGW_TEST_BIN", "/nonexistent/versitygw")
	if _, err := Find("VGW_TEST_BIN"); err == nil || !strings.Contains(err.Error(), "VGW_TEST_BIN=/nonexistent/versitygw") {
		t.Fatalf("a variable naming no file: %v", err)
	}
	t.Setenv("VGW_TEST_BIN", "")
	if _, err := Find("VGW_TEST_BIN"); err == nil || !strings.Contains(err.Error(), "make tools") || !strings.Contains(err.Error(), "PATH") {
		t.Fatalf("nothing anywhere: %v", err)
	}
}

// TestStartExits: a binary that exits before it listens is an error with
// its output, not a wait of StartDeadline.
func TestStartExits(t *testing.T) {
	_, err := Start(Options{Bin: "/bin/false", Root: t.TempDir(), Access: "a", Secret: "s", Region: "us-east-1"})
	if err == nil || !strings.Contains(err.Error(), "exited before it listened") {
		t.Fatalf("err %v", err)
	}
}

// TestStartStop: the real server listens on 127.0.0.1 once Start
// returns, and nothing listens after Stop.
func TestStartStop(t *testing.T) {
	bin, err := Find("QUEEN_VERSITYGW")
	if err != nil {
		t.Fatal(err) // CI installs it (make tools): a skip would hide that
	}
	p, err := Start(Options{Bin: bin, Root: t.TempDir(), Access: "a", Secret: "secret-key", Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(p.URL, "http://")
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("URL %s is not on 127.0.0.1", p.URL)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("nothing listens at %s after Start: %v", addr, err)
	}
	c.Close()
	p.Stop()
	p.Stop() // a second Stop only waits
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatalf("versitygw still listens on %s after Stop", addr)
	}
}

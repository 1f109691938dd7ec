package freeport_test

import (
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/testkit/freeport"
)

// TestNeverTwice: many ports in a row are all distinct, and each can be
// listened on.
func TestNeverTwice(t *testing.T) {
	seen := map[int]bool{}
	for range 200 {
		p := freeport.Take(t)
		if p <= 0 || p > 65535 {
			t.Fatalf("port %d", p)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
	}
	p := freeport.Take(t)
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err != nil {
		t.Fatalf("listen on the free port: %v", err)
	}
	l.Close()
}

// TestAddr: Addr is 127.0.0.1 with a port of its own.
func TestAddr(t *testing.T) {
	a, err := freeport.Addr()
	if err != nil {
		t.Fatal(err)
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil || host != "127.0.0.1" || strings.TrimLeft(port, "0123456789") != "" {
		t.Fatalf("Addr = %q (%v)", a, err)
	}
	b, err := freeport.Addr()
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatalf("Addr gave %s twice", a)
	}
}

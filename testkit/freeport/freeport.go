package freeport

import (
	"net"
	"strconv"
	"sync"
)

// handedOut are the ports this process was given.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool // INVARIANT: written only with the mutex held.
}{ports: map[int]bool{}}

// Port returns a port on 127.0.0.1 that nothing listened on a moment ago
// and that this process was not given before. Its error is net.Listen's.
func Port() (int, error) {
	handedOut.Lock()
	defer handedOut.Unlock()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !handedOut.ports[port] {
			handedOut.ports[port] = true
			return port, nil
		}
	}
}

// Addr returns "127.0.0.1:<port>" of a port from Port.
func Addr() (string, error) {
	p, err := Port()
	if err != nil {
		return "", err
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(p)), nil
}

// TB is the part of testing.TB that Take uses.
type TB interface {
	Helper()
	Fatal(args ...any)
}

// Take returns a port from Port, failing t with Port's error when there is
// none.
func Take(t TB) int {
	t.Helper()
	p, err := Port()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

package chaos

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"sync"
)

// lowPorts is where the nodes' ports are drawn from: below the kernel's
// ephemeral range, so that no outgoing connection (the workload's
// clients', the proxies') is handed a node's port while the node is down
// between a kill and its start, nor between the draw and its first
// start. handed holds the ports this process handed out, none twice.
var lowPorts struct {
	sync.Mutex
	lo, hi int
	handed map[int]bool
}

// ephemeralLow is the first port of the kernel's ephemeral range (32768
// when it cannot be read).
func ephemeralLow() int {
	lo, hi := 32768, 0
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		fmt.Sscan(string(b), &lo, &hi)
	}
	return lo
}

// listenLow listens on a 127.0.0.1 port below the ephemeral range that
// this process never handed out before; where none is free it falls back
// to a port the kernel picks.
func listenLow() (net.Listener, error) {
	lowPorts.Lock()
	defer lowPorts.Unlock()
	if lowPorts.handed == nil {
		lowPorts.lo, lowPorts.hi, lowPorts.handed = 10000, ephemeralLow(), map[int]bool{}
	}
	for range 200 {
		if lowPorts.hi <= lowPorts.lo {
			break
		}
		p := lowPorts.lo + rand.IntN(lowPorts.hi-lowPorts.lo)
		if lowPorts.handed[p] {
			continue
		}
		if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p)); err == nil {
			lowPorts.handed[p] = true
			return l, nil
		}
	}
	return net.Listen("tcp", "127.0.0.1:0")
}

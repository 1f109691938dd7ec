// Package netproxy cuts, delays and heals the raft links between real
// queen processes without root. Every node advertises a proxy address
// (QUEEN_RAFT_ADDRESS) and listens behind it (QUEEN_RAFT_LISTEN_ADDRESS);
// the proxy of node j reads the first frame of each connection it
// accepts, learns from it which node dialed (dragonboat's message batch
// names its source address, a snapshot chunk its sender), and carries the
// connection only while the directed link from that node to j is up.
// Dragonboat dials one connection per direction and never answers on it,
// so cutting the link i→j drops what i sends to j and nothing j sends to
// i: a one-way partition; cutting both directions across two groups is a
// partition.
package netproxy

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	pb "github.com/lni/dragonboat/v4/raftpb"
)

// link is the state of one directed link and the connections it carries.
type link struct {
	cut   bool
	delay time.Duration
	conns map[net.Conn]struct{}
}

// Mesh is the proxies of a cluster of nodes 1..n.
type Mesh struct {
	n       int
	targets []string // node j's listener: targets[j-1]
	lns     []net.Listener
	mu      sync.Mutex
	links   map[[2]int]*link
	byAddr  map[string]int // advertised address → node
	closed  bool
}

// NewMesh starts a proxy in front of each of targets (node j's listen
// address is targets[j-1]); Addr(j) is what node j advertises.
func NewMesh(targets []string) (*Mesh, error) {
	m := &Mesh{n: len(targets), targets: targets, links: map[[2]int]*link{}, byAddr: map[string]int{}}
	for i := 1; i <= m.n; i++ {
		for j := 1; j <= m.n; j++ {
			if i != j {
				m.links[[2]int{i, j}] = &link{conns: map[net.Conn]struct{}{}}
			}
		}
	}
	for j := 1; j <= m.n; j++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			m.Close()
			return nil, err
		}
		m.lns = append(m.lns, ln)
		m.byAddr[ln.Addr().String()] = j
	}
	for j, ln := range m.lns { // byAddr is whole before any connection reads it
		go m.accept(ln, j+1)
	}
	return m, nil
}

// Addr is the address node j advertises: its proxy.
func (m *Mesh) Addr(j int) string { return m.lns[j-1].Addr().String() }

// Cut drops the link from node i to node j: its connections close, new
// ones close as soon as their sender is known, until healed.
func (m *Mesh) Cut(i, j int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cutLocked(i, j)
}

func (m *Mesh) cutLocked(i, j int) {
	l := m.links[[2]int{i, j}]
	l.cut = true
	for c := range l.conns {
		c.Close()
	}
	clear(l.conns)
}

// SetDelay holds every chunk the link from i to j carries for d (0: none).
func (m *Mesh) SetDelay(i, j int, d time.Duration) {
	m.mu.Lock()
	m.links[[2]int{i, j}].delay = d
	m.mu.Unlock()
}

// IsCut reports whether the link from i to j is cut.
func (m *Mesh) IsCut(i, j int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.links[[2]int{i, j}].cut
}

// Partition cuts every link between nodes of different groups and heals
// every link within one; a node in no group is cut from every other.
func (m *Mesh) Partition(groups ...[]int) {
	group := map[int]int{}
	for g, nodes := range groups {
		for _, n := range nodes {
			group[n] = g + 1
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, l := range m.links {
		if gi, gj := group[k[0]], group[k[1]]; gi != 0 && gi == gj {
			l.cut = false
		} else {
			m.cutLocked(k[0], k[1])
		}
	}
}

// Heal heals every link and takes every delay away.
func (m *Mesh) Heal() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, l := range m.links {
		l.cut, l.delay = false, 0
	}
}

// Close stops the proxies and closes their connections.
func (m *Mesh) Close() {
	m.mu.Lock()
	m.closed = true
	for _, l := range m.links {
		for c := range l.conns {
			c.Close()
		}
		clear(l.conns)
	}
	m.mu.Unlock()
	for _, ln := range m.lns {
		ln.Close()
	}
}

func (m *Mesh) accept(ln net.Listener, j int) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go m.serve(c, j)
	}
}

// The frame of dragonboat's TCP transport: a magic number, a header
// (method u16, payload size u64, header crc u32, payload crc u32), the
// payload: a MessageBatch (raft) or a Chunk (snapshot).
const (
	headerSize   = 2 + 18
	methodRaft   = 100
	methodChunk  = 200
	maxFirstSize = 256 << 20
)

// sender reads the first frame of c and names the node that sent it,
// returning the bytes read to forward them.
func (m *Mesh) sender(c net.Conn) (int, []byte, error) {
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer c.SetReadDeadline(time.Time{})
	head := make([]byte, headerSize)
	if _, err := io.ReadFull(c, head); err != nil {
		return 0, nil, err
	}
	method, size := binary.BigEndian.Uint16(head[2:]), binary.BigEndian.Uint64(head[4:])
	if size == 0 || size > maxFirstSize {
		return 0, nil, errors.New("netproxy: not a dragonboat frame")
	}
	frame := make([]byte, headerSize+int(size))
	copy(frame, head)
	if _, err := io.ReadFull(c, frame[headerSize:]); err != nil {
		return 0, nil, err
	}
	switch method {
	case methodRaft:
		var b pb.MessageBatch
		if err := b.Unmarshal(frame[headerSize:]); err != nil {
			return 0, nil, err
		}
		if i, ok := m.byAddr[b.SourceAddress]; ok {
			return i, frame, nil
		}
	case methodChunk:
		var ch pb.Chunk
		if err := ch.Unmarshal(frame[headerSize:]); err != nil {
			return 0, nil, err
		}
		if ch.From >= 1 && int(ch.From) <= m.n {
			return int(ch.From), frame, nil
		}
	}
	return 0, nil, errors.New("netproxy: a frame of no known node")
}

// track adds c to the link's connections unless it is cut or the mesh
// closed.
func (m *Mesh) track(k [2]int, cs ...net.Conn) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.links[k]
	if l.cut || m.closed {
		return false
	}
	for _, c := range cs {
		l.conns[c] = struct{}{}
	}
	return true
}

func (m *Mesh) untrack(k [2]int, cs ...net.Conn) {
	m.mu.Lock()
	for _, c := range cs {
		delete(m.links[k].conns, c)
	}
	m.mu.Unlock()
}

func (m *Mesh) serve(in net.Conn, j int) {
	defer in.Close()
	i, first, err := m.sender(in)
	if err != nil || i == j {
		return
	}
	k := [2]int{i, j}
	if !m.track(k, in) { // cut: the target never sees the connection
		return
	}
	defer m.untrack(k, in)
	out, err := net.DialTimeout("tcp", m.targets[j-1], 5*time.Second)
	if err != nil {
		return
	}
	defer out.Close()
	if !m.track(k, out) {
		return
	}
	defer m.untrack(k, out)
	if !m.forward(k, out, first) {
		return
	}
	done := make(chan struct{}, 2)
	go func() { m.pipe(k, out, in); done <- struct{}{} }()
	go func() { m.pipe(k, in, out); done <- struct{}{} }()
	<-done // one side ended: the defers close both, which ends the other
}

// forward writes b to dst after the link's delay, unless it is cut.
func (m *Mesh) forward(k [2]int, dst net.Conn, b []byte) bool {
	m.mu.Lock()
	l := m.links[k]
	d, cut := l.delay, l.cut
	m.mu.Unlock()
	if cut {
		return false
	}
	if d > 0 {
		time.Sleep(d)
	}
	_, err := dst.Write(b)
	return err == nil
}

// pipe copies src to dst chunk by chunk through forward.
func (m *Mesh) pipe(k [2]int, dst, src net.Conn) {
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !m.forward(k, dst, buf[:n]) {
			return
		}
		if err != nil { // EOF or a closed side
			return
		}
	}
}

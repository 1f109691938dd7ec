package netproxy

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	pb "github.com/lni/dragonboat/v4/raftpb"
)

// frame is a dragonboat raft frame from the node at source.
func frame(t *testing.T, source string) []byte {
	t.Helper()
	b := pb.MessageBatch{SourceAddress: source, BinVer: 210}
	payload, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	out := []byte{0xAE, 0x7D}
	out = binary.BigEndian.AppendUint16(out, methodRaft)
	out = binary.BigEndian.AppendUint64(out, uint64(len(payload)))
	out = append(out, make([]byte, 8)...) // the crcs: the proxy does not check them
	return append(out, payload...)
}

// sink accepts connections and sends what each carries on got.
func sink(t *testing.T) (string, chan []byte) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan []byte, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				b, _ := io.ReadAll(c)
				got <- b
			}()
		}
	}()
	return ln.Addr().String(), got
}

// send dials node j's proxy, writes a frame from node i and more, and
// closes.
func send(t *testing.T, m *Mesh, i, j int, more string) {
	t.Helper()
	c, err := net.Dial("tcp", m.Addr(j))
	if err != nil {
		t.Fatal(err)
	}
	c.Write(append(frame(t, m.Addr(i)), more...))
	c.Close()
}

func recv(t *testing.T, got chan []byte) []byte {
	t.Helper()
	select {
	case b := <-got:
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("the target received nothing within 10 s")
		return nil
	}
}

// TestMeshCutsOneDirection: a connection to node 2's proxy reaches node
// 2's listener with every byte, its first frame included; once the link
// 1→2 is cut, node 1's connections are dropped before they reach it while
// node 3's still do; healed, node 1's reach it again.
func TestMeshCutsOneDirection(t *testing.T) {
	a1, _ := sink(t)
	a2, got2 := sink(t)
	a3, _ := sink(t)
	m, err := NewMesh([]string{a1, a2, a3})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()

	send(t, m, 1, 2, "hello")
	if b := recv(t, got2); !bytes.Equal(b, append(frame(t, m.Addr(1)), "hello"...)) {
		t.Fatalf("node 2 received %q", b)
	}
	m.Cut(1, 2)
	if !m.IsCut(1, 2) || m.IsCut(2, 1) {
		t.Fatal("Cut(1, 2) cut another direction")
	}
	send(t, m, 1, 2, "dropped")
	send(t, m, 3, 2, "from-3")
	if b := recv(t, got2); !bytes.HasSuffix(b, []byte("from-3")) {
		t.Fatalf("with 1→2 cut node 2 received %q, want node 3's connection", b)
	}
	m.Heal()
	send(t, m, 1, 2, "again")
	if b := recv(t, got2); !bytes.HasSuffix(b, []byte("again")) {
		t.Fatalf("healed, node 2 received %q", b)
	}
	select {
	case b := <-got2:
		if bytes.HasSuffix(b, []byte("dropped")) {
			t.Fatalf("node 2 received the connection sent while 1→2 was cut: %q", b)
		}
	default:
	}
}

// TestMeshPartition: Partition cuts both directions across groups and
// heals within them; a frame of no node of the mesh is not carried.
func TestMeshPartition(t *testing.T) {
	var targets []string
	for range 3 {
		a, _ := sink(t)
		targets = append(targets, a)
	}
	m, err := NewMesh(targets)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.Partition([]int{1}, []int{2, 3})
	for _, l := range []struct {
		i, j int
		cut  bool
	}{{1, 2, true}, {2, 1, true}, {1, 3, true}, {3, 1, true}, {2, 3, false}, {3, 2, false}} {
		if m.IsCut(l.i, l.j) != l.cut {
			t.Errorf("link %d→%d cut %v, want %v", l.i, l.j, !l.cut, l.cut)
		}
	}
	if i, _, err := m.sender(bytesConn(frame(t, "127.0.0.1:1"))); err == nil {
		t.Fatalf("a frame of an unknown address was taken as node %d's", i)
	}
}

// bytesConn is a net.Conn reading b.
func bytesConn(b []byte) net.Conn {
	c1, c2 := net.Pipe()
	go func() { c2.Write(b); c2.Close() }()
	return c1
}

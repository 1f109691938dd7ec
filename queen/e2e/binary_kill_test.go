package e2e

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/httpd/wire"
)

// TestKillAllDuringBinaryPush: three nodes take framed binary pushes (the
// client's binary_push with push_compression); every node is killed with
// SIGKILL while pushes are in flight, then all three restart. The
// producers retry each unanswered push with the same bytes (the same
// client-minted ids) until it is answered. Afterwards every answered
// record is on every node exactly once, with its bytes, and no record is
// there twice: an answered write was fsynced on a majority before its
// answer, and a retried one is a duplicate.
func TestKillAllDuringBinaryPush(t *testing.T) {
	nodes := startedCluster(t, 3, "three processes killed and restarted; run without -short")
	var mu sync.Mutex
	up := true
	alive := func() []*node {
		mu.Lock()
		defer mu.Unlock()
		if !up {
			return nil
		}
		return nodes
	}
	p := newProducer()
	stop := produce(6, func(ctx context.Context, w int) { p.runBinary(ctx, t, alive, w, 4) })
	waitAcked(t, p, 600)
	mu.Lock()
	up = false
	mu.Unlock()
	for _, n := range nodes { // pushes are in flight: no node is asked to stop first
		n.signal(syscall.SIGKILL)
	}
	killed := ackedCount(p)
	startAll(nodes)
	mu.Lock()
	up = true
	mu.Unlock()
	waitAcked(t, p, killed+300) // the restarted cluster takes the retries and new pushes
	stop()
	checkExactlyOnce(t, nodes, p, 4)
}

// runBinary is run's loop with framed binary push bodies: each push is
// three records over the partitions, each framed with a version-7 id
// minted here, and is retried with the same bytes on any node until one
// answers (or, once the run is over, given up unanswered).
func (p *producer) runBinary(ctx context.Context, t testing.TB, nodes func() []*node, worker, partitions int) {
	for i := 0; ctx.Err() == nil; i++ {
		var groups []wire.Group
		var txids, parts []string
		for j := 0; j < 3; j++ {
			part := fmt.Sprintf("p-%d", (worker+i+j)%partitions)
			id := v7()
			txid, sent := fmt.Sprintf("b%d-%d-%d", worker, i, j), ""
			if j == 2 { // none of its own: deduplicated by its id's text, as the client's default
				txid = uuid.UUID(id).String()
			} else {
				sent = txid
			}
			groups = append(groups, wire.Group{Queue: "orders", Partition: part, Messages: []wire.Message{{
				TransactionID: sent, ID: id,
				Payload: fmt.Appendf(nil, `{"w":%d,"i":%d,"j":%d,"total":42.00}`, worker, i, j)}}})
			txids, parts = append(txids, txid), append(parts, part)
		}
		body, err := wire.AppendPush(nil, groups, wire.PushOptions{Frames: true})
		if err != nil {
			t.Errorf("encode: %v", err)
			return
		}
		// Every node is down for a while: the retries go on for 90 s.
		deadline := time.Now().Add(90 * time.Second)
		send := func(n *node) ([]pushAnswer, error) { return pushRaw(n, body) }
		if !p.deliver(ctx, t, nodes, worker, txids, parts, send, func(int) bool { return time.Now().After(deadline) }) {
			return
		}
	}
}

// pushRaw posts a binary push body and reads its per-item answer.
func pushRaw(n *node, body []byte) ([]pushAnswer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, raw, err := n.send(ctx, http.MethodPost, "/api/v1/push", body, nil) // wire.PushContentType: body starts with wire.PushMagic
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusCreated {
		return nil, fmt.Errorf("binary push answered %d: %s", resp.StatusCode, raw)
	}
	var out []pushAnswer
	return out, json.Unmarshal(raw, &out)
}

// v7 is a version-7 UUID, as the client mints a framed message's id.
func v7() (id [16]byte) {
	_, _ = rand.Read(id[:])
	ms := time.Now().UnixMilli()
	for i := 5; i >= 0; i-- {
		id[i] = byte(ms)
		ms >>= 8
	}
	id[6] = 0x70 | id[6]&0x0F
	id[8] = 0x80 | id[8]&0x3F
	return id
}

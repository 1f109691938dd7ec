package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mountTmpfs mounts a tmpfs of size bytes at dir and unmounts it when the
// test ends (after the nodes it holds are stopped: cleanups run last
// first). It skips the test when this process cannot mount one.
func mountTmpfs(t *testing.T, dir string, size int64) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a tmpfs mount needs root: the real-disk test of the storage gate is skipped")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("mount a tmpfs at %s: %v: the real-disk test of the storage gate is skipped", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
			syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	})
}

// usedPct is df's use of the file system holding dir.
func usedPct(t *testing.T, dir string) float64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	used := float64(st.Blocks - st.Bfree)
	return 100 * used / (used + float64(st.Bavail))
}

// fillTo writes a ballast file into dir until its file system is pct full.
func fillTo(t *testing.T, dir string, pct float64) string {
	t.Helper()
	path := filepath.Join(dir, "ballast")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for usedPct(t, dir) < pct {
		if _, err := f.Write(chunk); err != nil {
			t.Fatalf("ballast: %v", err)
		}
	}
	return path
}

// diskOf is a node's /health disk block.
func diskOf(n *node) map[string]any {
	_, body := n.health()
	d, _ := body["disk"].(map[string]any)
	return d
}

// TestDiskFullFollower: node 3's data directory is a 128 MB tmpfs. Filled
// past its high mark with a ballast file, it says so and the cluster
// refuses pushes with 507 storage_full on every node while acks and pops
// go on; node 3 stays up, and starts again on its full disk; with the
// ballast gone pushes are taken again, and every node holds every acked
// record, byte for byte, and none of the refused.
func TestDiskFullFollower(t *testing.T) {
	mnt := filepath.Join(t.TempDir(), "tmpfs")
	mountTmpfs(t, mnt, 128<<20)
	nodes := cluster(t, 3, "QUEEN_RAFT_DISK_POLL_MS=100")
	nodes[2].env = append(nodes[2].env, "QUEEN_DATA_DIR="+filepath.Join(mnt, "data")) // the last wins
	startAll(nodes)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	pushed := map[string]string{} // txn → payload, every acked push
	push := func(n *node, txn string) int {
		t.Helper()
		payload := fmt.Sprintf(`{"txn":%q,"pad":"%s"}`, txn, strings.Repeat("x", 200))
		body := map[string]any{"items": []map[string]any{
			{"queue": "disk", "partition": "p", "transactionId": txn, "payload": json.RawMessage(payload)}}}
		code, err := n.call(ctx, http.MethodPost, "/api/v1/push", body, nil)
		// A 503 is an outcome unknown (an election just after the start
		// dropped the proposal): the client sends the same transactionId
		// again, which a stored push answers as its duplicate.
		for code == http.StatusServiceUnavailable && ctx.Err() == nil {
			time.Sleep(50 * time.Millisecond) // a client's backoff
			code, err = n.call(ctx, http.MethodPost, "/api/v1/push", body, nil)
		}
		if code == http.StatusCreated {
			pushed[txn] = payload
		} else if code != http.StatusInsufficientStorage {
			t.Fatalf("push %s through node %d: %d %v", txn, n.id, code, err)
		} else if !strings.Contains(err.Error(), `"code":"storage_full"`) {
			t.Fatalf("push %s through node %d: %v, want code storage_full", txn, n.id, err)
		}
		return code
	}
	for i := range 300 {
		if code := push(nodes[i%3], fmt.Sprint("before-", i)); code != http.StatusCreated {
			t.Fatalf("push before the ballast: %d", code)
		}
	}
	var pop struct {
		LeaseID  string `json:"leaseId"`
		Messages []struct {
			TransactionID string `json:"transactionId"`
			PartitionID   string `json:"partitionId"`
		} `json:"messages"`
	}
	if _, err := nodes[0].call(ctx, http.MethodGet, "/api/v1/pop/queue/disk?consumerGroup=g&batch=10&subscriptionMode=all", nil, &pop); err != nil || len(pop.Messages) != 10 {
		t.Fatalf("pop: %v %+v", err, pop)
	}

	ballast := fillTo(t, mnt, 90)
	t.Logf("ballast in: %s is %.1f%% full", mnt, usedPct(t, mnt))
	refusing := func(want bool) func() bool {
		return func() bool {
			for _, n := range nodes {
				if d := diskOf(n); d == nil || d["refusingWrites"] != want {
					return false
				}
			}
			return true
		}
	}
	waitFor(t, "every node to refuse growing writes", 30*time.Second, refusing(true))
	if d := diskOf(nodes[2]); d["full"] != true || d["usedPct"].(float64) < 85 {
		t.Fatalf("node 3's disk block: %v", d)
	}
	for i, n := range nodes {
		if code := push(n, fmt.Sprint("refused-", i)); code != http.StatusInsufficientStorage {
			t.Fatalf("push through node %d with node 3 full: %d, want 507", n.id, code)
		}
	}
	for _, m := range pop.Messages {
		if _, err := nodes[1].call(ctx, http.MethodPost, "/api/v1/ack", map[string]any{"transactionId": m.TransactionID,
			"partitionId": m.PartitionID, "leaseId": pop.LeaseID, "consumerGroup": "g"}, nil); err != nil {
			t.Fatalf("ack while full: %v", err)
		}
	}
	if _, err := nodes[2].call(ctx, http.MethodGet, "/api/v1/pop/queue/disk?consumerGroup=g&batch=5", nil, &pop); err != nil || len(pop.Messages) != 5 ||
		pop.Messages[0].TransactionID != "before-10" {
		t.Fatalf("pop while full: %v %+v", err, pop)
	}

	// Node 3 starts again on its full disk: ready, and still full.
	nodes[2].signal(syscall.SIGTERM)
	nodes[2].start()
	nodes[2].waitReady()
	if code := push(nodes[2], "refused-restart"); code != http.StatusInsufficientStorage {
		t.Fatalf("push through node 3 restarted on its full disk: %d", code)
	}

	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	t.Logf("ballast out: %s is %.1f%% full", mnt, usedPct(t, mnt))
	waitFor(t, "every node to take writes again", 30*time.Second, refusing(false))
	for i := range 60 {
		if code := push(nodes[i%3], fmt.Sprint("after-", i)); code != http.StatusCreated {
			t.Fatalf("push after the ballast went: %d", code)
		}
	}
	recs := readAgreed(t, nodes, "disk", "p")
	if len(recs) != len(pushed) {
		t.Fatalf("the nodes hold %d records, %d pushes were acked", len(recs), len(pushed))
	}
	for _, r := range recs {
		if want, ok := pushed[r.TransactionID]; !ok || string(r.Payload) != want {
			t.Fatalf("offset %d: txn %q, %d bytes: not an acked push's record", r.Offset, r.TransactionID, len(r.Payload))
		}
	}
	if strings.Contains(nodes[2].log(), "panic") {
		t.Fatalf("node 3 panicked:\n%s", nodes[2].log())
	}
}

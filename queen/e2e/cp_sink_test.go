package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/s3sink/s3test"
)

// cpToken is the control plane's token of these tests.
const cpToken = "cp-token-of-the-e2e-tests"

// cpKeyHex is the QUEEN_ENCRYPTION_KEY of these tests.
var cpKeyHex = strings.Repeat("5a", 32)

// cpEnv is a node environment with the control plane, tenancy, the
// encryption key and the sink on for control-plane tenants only (no
// QUEEN_S3_QUEUES), with short intervals.
func cpEnv(extra ...string) []string {
	return append([]string{"QUEEN_TENANCY_HEADER=true", "QUEEN_PROXY_CP_TOKEN=" + cpToken, "QUEEN_ENCRYPTION_KEY=" + cpKeyHex,
		"QUEEN_S3_EMBEDDED=true", "QUEEN_S3_DISCOVERY_INTERVAL_MS=200", "QUEEN_S3_SAFE_GUARD_MS=500", "QUEEN_S3_LEASE_TTL_MS=3000"},
		extra...)
}

// do sends a request with the given headers (name, value pairs) and
// answers its status and body; 503s are asked again until ctx ends, for
// requests the caller knows to be idempotent (retry).
func (n *node) do(ctx context.Context, retry bool, method, path string, body any, header ...string) (int, []byte, error) {
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	for {
		resp, b, err := n.send(ctx, method, path, body, h)
		if resp == nil {
			return 0, nil, err
		}
		if err != nil || !retry || resp.StatusCode != http.StatusServiceUnavailable || ctx.Err() != nil {
			return resp.StatusCode, b, err
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// cp calls the control plane and decodes its answer, failing the test
// unless it is a 200.
func (n *node) cp(t *testing.T, method, path string, body any, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, b, err := n.do(ctx, true, method, path, body, "x-queen-cp-token", cpToken)
	if err != nil || code != http.StatusOK {
		t.Fatalf("%s %s: %d %s %v", method, path, code, b, err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %s: %v", method, path, b, err)
		}
	}
}

// mintKey mints an API key of cluster with scopes.
func (n *node) mintKey(t *testing.T, cluster string, scopes ...string) string {
	t.Helper()
	var k struct{ Key string }
	n.cp(t, "POST", "/api/cp/keys", map[string]any{"cluster": cluster, "scopes": scopes}, &k)
	if k.Key == "" {
		t.Fatal("no key minted")
	}
	return k.Key
}

// sinkUnit is the s3 block's unit of a tenant's sink on n (nil: none).
func (n *node) sinkUnit(tenant string) map[string]any {
	var st struct {
		S3 struct {
			Sinks []map[string]any `json:"sinks"`
		} `json:"s3"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	code, b, err := n.do(ctx, false, http.MethodGet, "/status", nil, "x-queen-cp-token", cpToken)
	if err != nil || code != http.StatusOK || json.Unmarshal(b, &st) != nil {
		return nil
	}
	for _, u := range st.S3.Sinks {
		if u["tenant"] == tenant {
			return u
		}
	}
	return nil
}

// unitQueue is a unit's row of a queue (nil: none).
func unitQueue(u map[string]any, queue string) map[string]any {
	qs, _ := u["queues"].([]any)
	for _, q := range qs {
		if m, _ := q.(map[string]any); m["name"] == queue {
			return m
		}
	}
	return nil
}

// committed is the highest window of queue any node committed in a
// tenant's sink.
func committed(nodes []*node, tenant, queue string) float64 {
	k := 0.0
	for _, n := range nodes {
		if n.cmd == nil {
			continue
		}
		if q := unitQueue(n.sinkUnit(tenant), queue); q != nil {
			k = max(k, q["k"].(float64))
		}
	}
	return k
}

// reachable reports whether every node's unit of tenant says its bucket
// answered (want true) or did not (want false).
func reachable(nodes []*node, tenant string, want bool) bool {
	for _, n := range nodes {
		u := n.sinkUnit(tenant)
		b, _ := u["bucket"].(map[string]any)
		r, ok := b["reachable"].(bool)
		if !ok || r != want {
			return false
		}
	}
	return true
}

// sinkDoc is a control-plane sink body for bucket on gw.
func sinkDoc(gw *s3test.Server, bucket, secret string) map[string]any {
	return map[string]any{"endpoint": gw.URL, "region": gw.Region, "bucket": bucket, "pathStyle": true,
		"accessKey": gw.Access, "secretKey": secret, "queues": "orders", "start": "earliest", "maxWindowMs": 2000}
}

// TestCPTenantSinks: two control-plane tenants on three nodes, each with
// its own bucket on its own S3 server with its own credentials, pushing to
// queues of the same names. Each tenant's records reach only its bucket;
// A's secret is rotated to a wrong one and back while both push: every
// node sees each change, B never stops, and A's lake ends with every
// record once (queen-lake verify). No secret shows in any log line,
// answer, status or metric of the run.
func TestCPTenantSinks(t *testing.T) {
	if testing.Short() {
		t.Skip("three processes and two S3 servers; run without -short")
	}
	gwA := s3test.VersitygwAs(t, "tenant-a-access", "tenant-a-secret-0123456789")
	gwB := s3test.VersitygwAs(t, "tenant-b-access", "tenant-b-secret-9876543210")
	gwA.Bucket(t, "lake-a")
	gwB.Bucket(t, "lake-b")
	const wrongSecret = "a-wrong-secret-for-tenant-a"
	const tA, tB = "aaaaaaaa-0000-4000-8000-00000000000a", "bbbbbbbb-0000-4000-8000-00000000000b"
	nodes := cluster(t, 3, cpEnv()...)
	startAll(nodes)
	var answers bytes.Buffer
	cpKeep := func(method, path string, body any) {
		var out json.RawMessage
		nodes[0].cp(t, method, path, body, &out)
		answers.Write(out)
	}
	cpKeep("POST", "/api/cp/tenants", map[string]any{"slug": "a"})
	cpKeep("POST", "/api/cp/tenants", map[string]any{"slug": "b"})
	cpKeep("PUT", "/api/cp/clusters/a-prod", map[string]any{"tenant": "a", "brokerTenant": tA})
	cpKeep("PUT", "/api/cp/clusters/b-prod", map[string]any{"tenant": "b", "brokerTenant": tB})
	cpKeep("PUT", "/api/cp/clusters/a-prod/s3", sinkDoc(gwA, "lake-a", gwA.Secret))
	cpKeep("PUT", "/api/cp/clusters/b-prod/s3", sinkDoc(gwB, "lake-b", gwB.Secret))
	keys := map[string]string{tA: nodes[0].mintKey(t, "a-prod", "produce", "read"), tB: nodes[0].mintKey(t, "b-prod", "produce", "read")}

	// Both tenants push to orders p-0 and p-1, with the same transaction
	// ids, every 50 ms, through the nodes in turn.
	load, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	pushed := map[string]int{}
	var mu sync.Mutex
	// Each pushes with its own key, and names the other tenant in the
	// header: the key's tenant is the one that counts.
	for _, tn := range []struct{ name, id, other string }{{"a", tA, tB}, {"b", tB, tA}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; load.Err() == nil; i++ {
				item := map[string]any{"queue": "orders", "partition": fmt.Sprintf("p-%d", i%2), "transactionId": fmt.Sprintf("tx-%d", i),
					"payload": map[string]any{"tenant": tn.name, "n": i}}
				ctx, cancel := context.WithTimeout(load, 10*time.Second)
				code, _, err := nodes[i%3].do(ctx, true, "POST", "/api/v1/push", map[string]any{"items": []any{item}},
					"Authorization", "Bearer "+keys[tn.id], "x-queen-tenant", tn.other)
				cancel()
				if err == nil && code == http.StatusCreated {
					mu.Lock()
					pushed[tn.name]++
					mu.Unlock()
				}
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	defer func() { stop(); wg.Wait() }()

	waitFor(t, "both tenants' sinks to commit a window", 90*time.Second, func() bool {
		return committed(nodes, tA, "orders") >= 1 && committed(nodes, tB, "orders") >= 1
	})
	// A wrong secret reaches every node: A's bucket refuses them all.
	cpKeep("PUT", "/api/cp/clusters/a-prod/s3", sinkDoc(gwA, "lake-a", wrongSecret))
	waitFor(t, "every node to run A's sink with the wrong secret", 60*time.Second, func() bool { return reachable(nodes, tA, false) })
	kB := committed(nodes, tB, "orders")
	waitFor(t, "B to go on committing while A cannot", 60*time.Second, func() bool { return committed(nodes, tB, "orders") > kB })
	// The right one again: every node reaches A's bucket, and A commits.
	kA := committed(nodes, tA, "orders")
	cpKeep("PUT", "/api/cp/clusters/a-prod/s3", sinkDoc(gwA, "lake-a", gwA.Secret))
	waitFor(t, "every node to run A's sink with the right secret", 60*time.Second, func() bool { return reachable(nodes, tA, true) })
	waitFor(t, "A to commit again", 60*time.Second, func() bool { return committed(nodes, tA, "orders") > kA })
	stop()
	wg.Wait()

	for _, c := range []struct {
		gw             *s3test.Server
		bucket, tenant string
	}{{gwA, "lake-a", tA}, {gwB, "lake-b", tB}} {
		waitTenantComplete(t, nodes, keys[c.tenant], c.tenant, "orders", "p-0", "p-1")
		out, err := exec.Command(lakeBin, "verify", "-endpoint", c.gw.URL, "-region", c.gw.Region, "-bucket", c.bucket, "-path-style",
			"-access-key", c.gw.Access, "-secret-key", c.gw.Secret, "-tenant", c.tenant, "-queue", "orders", "-broker", nodes[0].url,
			"-broker-token", keys[c.tenant]).CombinedOutput()
		if err != nil {
			t.Fatalf("queen-lake verify of tenant %s: %v\n%s", c.tenant, err, out)
		}
		for _, k := range listBucket(t, c.gw, c.bucket) {
			if !strings.Contains(k, "tenant="+c.tenant+"/") {
				t.Errorf("bucket %s holds %s, not under tenant=%s", c.bucket, k, c.tenant)
			}
		}
	}
	t.Logf("pushed %v", pushed)

	// No secret anywhere: logs, status, metrics, answers.
	for _, n := range nodes {
		for _, path := range []string{"/status", "/metrics/prometheus", "/metrics"} {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, b, _ := n.do(ctx, false, "GET", path, nil, "x-queen-cp-token", cpToken)
			cancel()
			answers.Write(b)
		}
	}
	everything := answers.String()
	for _, n := range nodes {
		everything += n.log()
	}
	// The API keys were answered once, when minted; nothing since shows them.
	for _, s := range []string{gwA.Secret, gwB.Secret, wrongSecret, keys[tA], keys[tB]} {
		if strings.Contains(everything, s) {
			t.Errorf("the secret %q shows in a log line, an answer, the status or a metric", s[:8]+"…")
		}
	}
}

// waitTenantComplete is waitComplete for a tenant's sink (key reads its
// records): every node is asked, the owner may be any.
func waitTenantComplete(t *testing.T, nodes []*node, key, tenant, queue string, partitions ...string) {
	t.Helper()
	last := ""
	for _, p := range partitions {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		code, b, err := nodes[0].do(ctx, true, "POST", "/api/v1/fetch", map[string]any{"entries": []any{
			map[string]any{"queue": queue, "partition": p, "offset": 0, "maxBytes": 8 << 20}}}, "Authorization", "Bearer "+key)
		cancel()
		if err != nil || code != http.StatusOK {
			t.Fatalf("fetch %s/%s of %s: %d %s %v", queue, p, tenant, code, b, err)
		}
		var ans struct {
			Entries []struct{ Records []struct{ Ts string } }
		}
		if err := json.Unmarshal(b, &ans); err != nil {
			t.Fatal(err)
		}
		for _, e := range ans.Entries {
			for _, r := range e.Records {
				last = max(last, r.Ts)
			}
		}
	}
	waitFor(t, "the lake of "+tenant+" to be complete", 60*time.Second, func() bool {
		for _, n := range nodes {
			if q := unitQueue(n.sinkUnit(tenant), queue); q != nil {
				if ct, _ := q["completeThrough"].(string); ct > last {
					return true
				}
			}
		}
		return false
	})
}

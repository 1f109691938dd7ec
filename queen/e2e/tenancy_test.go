package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/s3sink/s3test"
)

// The tenants of the isolation tests, and the control plane's, which no
// request may name.
const (
	tenantA      = "0a0a0a0a-0000-4000-8000-00000000000a"
	tenantB      = "0b0b0b0b-0000-4000-8000-00000000000b"
	systemTenant = "00000000-0000-0000-0000-000000000000"
)

// tenant sends requests to one node as one tenant (x-queen-tenant).
type tenant struct {
	t  *testing.T
	n  *node
	id string
}

func (c tenant) do(ctx context.Context, method, path string, body any) (int, []byte) {
	c.t.Helper()
	resp, raw, err := c.n.send(ctx, method, path, body, http.Header{"X-Queen-Tenant": {c.id}})
	if err != nil {
		c.t.Fatalf("tenant %s: %s %s: %v", c.id[:4], method, path, err)
	}
	return resp.StatusCode, raw
}

// want sends a request that must answer status, decoding the answer into
// out when it is not nil.
func (c tenant) want(ctx context.Context, status int, method, path string, body, out any) []byte {
	c.t.Helper()
	code, raw := c.do(ctx, method, path, body)
	if code != status {
		c.t.Fatalf("tenant %s: %s %s answered %d, want %d: %s", c.id[:4], method, path, code, status, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			c.t.Fatalf("tenant %s: %s %s: %v: %s", c.id[:4], method, path, err, raw)
		}
	}
	return raw
}

// probe is one request of the isolation test.
type probe struct {
	method, path string
	body         any
}

func (p probe) String() string { return p.method + " " + p.path }

// isoStamp matches the stamps answers render, which differ from one call to
// the next (safeTime, the throughput's times), and minted matches the
// transaction ids a transaction mints: answers are compared without them.
var (
	isoStamp = regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)"`)
	minted   = regexp.MustCompile(`"transactionId":"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}"`)
	safeTime = regexp.MustCompile(`"safeTime":"[^"]*"`)
)

func stable(raw []byte) string {
	return minted.ReplaceAllString(isoStamp.ReplaceAllString(string(raw), `"<stamp>"`), `"transactionId":"<minted>"`)
}

// tenantData is what tenant A wrote, and the ids its answers gave.
type tenantData struct {
	pid, lease, letter, token, version, ephID string
}

// write has c write in every family under the names every tenant of the
// test uses, and returns the ids the answers gave.
func (c tenant) write(ctx context.Context) tenantData {
	c.t.Helper()
	var d tenantData
	c.want(ctx, 200, "POST", "/api/v1/configure", map[string]any{"queue": "orders",
		"options": map[string]any{"namespace": "shop", "task": "bill"}}, nil)
	var pushed []pushAnswer
	var items []pushItem
	for i := range 4 {
		items = append(items, pushItem{Queue: "orders", Partition: "p1", TransactionID: fmt.Sprint("t", i),
			Payload: json.RawMessage(fmt.Sprintf(`{"tenant":%q,"i":%d}`, c.id, i))})
	}
	c.want(ctx, 201, "POST", "/api/v1/push", map[string]any{"items": items}, &pushed)
	for i, p := range pushed {
		if p.Status != "queued" || p.Offset != int64(i) {
			c.t.Fatalf("tenant %s: push %d answered %+v, want queued at offset %d (nothing of another tenant's)", c.id[:4], i, p, i)
		}
	}
	g := url.Values{"consumerGroup": {"workers"}, "subscriptionMode": {"all"}, "batch": {"2"}}
	var first popAnswer
	c.want(ctx, 200, "GET", "/api/v1/pop/queue/orders?"+g.Encode(), nil, &first)
	if len(first.Messages) != 2 || first.Messages[0].TransactionID != "t0" {
		c.t.Fatalf("tenant %s: pop %+v", c.id[:4], first)
	}
	d.pid = first.PartitionID
	var acked []ackResult
	c.want(ctx, 200, "POST", "/api/v1/ack/batch", map[string]any{"consumerGroup": "workers", "acknowledgments": []map[string]any{
		{"transactionId": "t0", "partitionId": d.pid, "leaseId": first.LeaseID},
		{"transactionId": "t1", "partitionId": d.pid, "leaseId": first.LeaseID, "status": "dlq", "error": "boom"},
	}}, &acked)
	if !acked[0].Success || !acked[1].DLQ {
		c.t.Fatalf("tenant %s: acks %+v", c.id[:4], acked)
	}
	g.Set("batch", "1")
	var second popAnswer
	c.want(ctx, 200, "GET", "/api/v1/pop/queue/orders?"+g.Encode(), nil, &second)
	if len(second.Messages) != 1 || second.Messages[0].TransactionID != "t2" {
		c.t.Fatalf("tenant %s: second pop %+v", c.id[:4], second)
	}
	d.lease = second.LeaseID // t2 stays leased
	d.letter = c.onlyID(ctx, "/api/v1/dlq?queue=orders")
	c.want(ctx, 201, "POST", "/api/v1/traces", map[string]any{"transactionId": "t2", "partitionId": d.pid, "consumerGroup": "workers",
		"traceNames": []string{"checkout"}, "data": map[string]string{"tenant": c.id}}, nil)
	var kv struct{ Version json.Number }
	c.want(ctx, 200, "PUT", "/api/v1/kv/cfg/k1", map[string]any{"value": map[string]string{"tenant": c.id}, "forever": true, "expect": 0}, &kv)
	d.version = kv.Version.String()
	var lock struct {
		Results []struct {
			Acquired bool        `json:"acquired"`
			Token    json.Number `json:"token"`
		}
	}
	c.want(ctx, 200, "POST", "/api/v1/locks", map[string]any{"operations": []any{map[string]any{"op": "acquire", "name": "door",
		"ttlSeconds": 600, "owner": "owner-" + c.id[:4]}}}, &lock)
	if !lock.Results[0].Acquired {
		c.t.Fatalf("tenant %s: lock %+v (another tenant's lock is not this one's)", c.id[:4], lock)
	}
	d.token = lock.Results[0].Token.String()
	for i := range 2 { // both permits of a semaphore of two: another tenant's are not this one's
		c.want(ctx, 200, "POST", "/api/v1/locks", map[string]any{"operations": []any{map[string]any{"op": "acquire", "name": "pool",
			"ttlSeconds": 600, "limit": 2, "owner": fmt.Sprint("owner-", c.id[:4], "-", i)}}}, &lock)
		if !lock.Results[0].Acquired {
			c.t.Fatalf("tenant %s: permit %d of the semaphore: %+v", c.id[:4], i, lock)
		}
	}
	var timer struct {
		Results []struct{ Status string }
	}
	c.want(ctx, 200, "POST", "/api/v1/timers", map[string]any{"operations": []any{map[string]any{"op": "schedule", "queue": "orders",
		"timerKey": "tk", "delayMs": 3_600_000, "txn": "tm-1", "payload": base64.StdEncoding.EncodeToString([]byte(`{"t":1}`))}}}, &timer)
	c.want(ctx, 200, "POST", "/api/v1/timers", map[string]any{"operations": []any{map[string]any{"op": "schedule", "queue": "fired",
		"timerKey": "now", "delayMs": 0, "txn": "tm-now", "payload": base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf(`{"tenant":%q}`, c.id)))}}}, nil)
	if timer.Results[0].Status != "scheduled" {
		c.t.Fatalf("tenant %s: timer %+v, want scheduled (another tenant's timer is not this one's)", c.id[:4], timer)
	}
	var txn struct{ Success bool }
	c.want(ctx, 200, "POST", "/api/v1/transaction", map[string]any{"positions": []any{map[string]any{"queue": "orders",
		"consumerGroup": "pos", "partition": "p1", "offset": 0, "metadata": "m-" + c.id[:4]}},
		"operations": []any{map[string]any{"type": "push", "queue": "orders", "partition": "p2", "transactionId": "tx-1",
			"payload": map[string]string{"tenant": c.id}}}}, &txn)
	if !txn.Success {
		c.t.Fatalf("tenant %s: the transaction was rolled back (another tenant's transactionId is not a duplicate)", c.id[:4])
	}
	c.want(ctx, 201, "POST", "/api/v1/ephemeral/push", map[string]any{"queue": "eph", "messages": []any{map[string]any{"payload": c.id}}}, nil)
	d.ephID = c.onlyID(ctx, "/api/v1/ephemeral/pop?queue=eph&group=g")
	waitFor(c.t, "tenant "+c.id[:4]+"'s timer to fire", 30*time.Second, func() bool {
		var got struct{ Entries []fetchEntry }
		c.want(ctx, 200, "POST", "/api/v1/fetch", map[string]any{"entries": []any{map[string]any{"queue": "fired", "partition": "Default", "offset": 0}}}, &got)
		return len(got.Entries[0].Records) > 0
	})
	return d
}

// onlyID GETs path, whose answer must list exactly one message (none of
// another tenant's), and returns its id.
func (c tenant) onlyID(ctx context.Context, path string) string {
	c.t.Helper()
	var got struct {
		Messages []struct{ ID string } `json:"messages"`
	}
	c.want(ctx, 200, "GET", path, nil, &got)
	if len(got.Messages) != 1 {
		c.t.Fatalf("tenant %s: GET %s answered %+v, want one message", c.id[:4], path, got)
	}
	return got.Messages[0].ID
}

// reads are the reads of a tenant's data that answer the same as long as
// nobody changes it.
func (d tenantData) reads() []probe {
	return []probe{
		{"GET", "/api/v1/resources/queues", nil},
		{"GET", "/api/v1/resources/queues/orders", nil},
		{"GET", "/api/v1/resources/queues/orders/depth?group=workers", nil},
		{"GET", "/api/v1/resources/partitions?queue=orders", nil},
		{"GET", "/api/v1/resources/namespaces", nil},
		{"GET", "/api/v1/resources/tasks", nil},
		{"GET", "/api/v1/status/queues", nil},
		{"GET", "/api/v1/status/queues/orders", nil},
		{"POST", "/api/v1/fetch", map[string]any{"entries": []any{map[string]any{"queue": "orders", "partition": "p1", "offset": 0}}}},
		{"POST", "/api/v1/partitions/changed", map[string]any{"entries": []any{map[string]any{"queue": "orders"}}}},
		{"GET", "/api/v1/consumer-groups", nil},
		{"GET", "/api/v1/consumer-groups/workers", nil},
		{"GET", "/api/v1/dlq?queue=orders", nil},
		{"GET", "/api/v1/messages?queue=orders", nil},
		{"GET", "/api/v1/messages/" + d.pid + "/t2", nil},
		{"GET", "/api/v1/traces/" + d.pid + "/t2", nil},
		{"GET", "/api/v1/traces/by-name/checkout", nil},
		{"GET", "/api/v1/traces/names", nil},
		{"GET", "/api/v1/kv/cfg/k1", nil},
		{"GET", "/api/v1/resources/kv/namespaces", nil},
		{"POST", "/api/v1/resources/kv/list", map[string]any{"namespace": "cfg"}},
		{"POST", "/api/v1/locks", map[string]any{"operations": []any{map[string]any{"op": "get", "name": "door"}, map[string]any{"op": "get", "name": "pool"}}}},
		{"GET", "/api/v1/timers/orders/tk", nil},
		{"GET", "/api/v1/timers/orders", nil},
		{"GET", "/api/v1/ephemeral/queues", nil},
		{"GET", "/api/v1/ephemeral/queues/eph/depth", nil},
		{"POST", "/api/v1/fetch", map[string]any{"entries": []any{map[string]any{"queue": "orders", "partition": "p2", "offset": 0},
			map[string]any{"queue": "fired", "partition": "Default", "offset": 0}}}},
	}
}

// snapshot answers every read, as the caller sees it.
func (c tenant) snapshot(ctx context.Context, reads []probe) map[string]string {
	c.t.Helper()
	out := map[string]string{}
	for _, p := range reads {
		code, raw := c.do(ctx, p.method, p.path, p.body)
		out[p.String()] = fmt.Sprintf("%d %s", code, safeTime.ReplaceAll(raw, nil))
	}
	return out
}

// unchanged fails unless c's reads answer as in before.
func (c tenant) unchanged(ctx context.Context, reads []probe, before map[string]string, after string) {
	c.t.Helper()
	for k, v := range c.snapshot(ctx, reads) {
		if before[k] != v {
			c.t.Errorf("after %s, tenant %s's %s answers\n%s\nwas\n%s", after, c.id[:4], k, v, before[k])
		}
	}
}

// names are the names a tenant writes under; every tenant of the test uses
// the same ones.
type names struct{ queue, partition, group, ns, key, lock, sem, timer, trace, eph, namespace, task string }

var (
	written = names{"orders", "p1", "workers", "cfg", "k1", "door", "pool", "tk", "checkout", "eph", "shop", "bill"}
	// nobody are names no tenant creates: each is written's behind
	// nobodyPrefix, which no answer holds otherwise.
	nobody = names{"nobody-orders", "nobody-p1", "nobody-workers", "nobody-cfg", "nobody-k1", "nobody-door", "nobody-pool",
		"nobody-tk", "nobody-checkout", "nobody-eph", "nobody-shop", "nobody-bill"}
)

const nobodyPrefix = "nobody-"

// namesProbes are what a tenant asks under names n, reads and writes: under
// another tenant's names each must answer as under names nobody created.
func namesProbes(n names) []probe {
	kvOps := func(ops ...map[string]any) map[string]any { return map[string]any{"operations": ops} }
	q, gq := "queue="+n.queue, "/consumer-groups/"+n.group+"/queues/"+n.queue
	entry := map[string]any{"queue": n.queue, "partition": n.partition, "offset": 0}
	return []probe{
		{"GET", "/api/v1/resources/queues", nil},
		{"GET", "/api/v1/resources/queues/" + n.queue, nil},
		{"GET", "/api/v1/resources/queues/" + n.queue + "/depth", nil},
		{"GET", "/api/v1/resources/queues/" + n.queue + "/depth?group=" + n.group, nil},
		{"GET", "/api/v1/resources/partitions", nil},
		{"GET", "/api/v1/resources/partitions?" + q, nil},
		{"GET", "/api/v1/resources/overview", nil},
		{"GET", "/api/v1/resources/namespaces", nil},
		{"GET", "/api/v1/resources/tasks", nil},
		{"GET", "/api/v1/status", nil},
		{"GET", "/api/v1/status/queues", nil},
		{"GET", "/api/v1/status/queues?namespace=" + n.namespace, nil},
		{"GET", "/api/v1/status/queues/" + n.queue, nil},
		{"GET", "/api/v1/status/analytics", nil},
		{"POST", "/api/v1/fetch", map[string]any{"entries": []any{entry}}},
		{"POST", "/api/v1/fetch/offsets", map[string]any{"entries": []any{map[string]any{"queue": n.queue, "partition": n.partition, "timestamp": 0}}}},
		{"POST", "/api/v1/partitions/changed", map[string]any{"entries": []any{map[string]any{"queue": n.queue}}}},
		{"GET", "/api/v1/consumer-groups", nil},
		{"GET", "/api/v1/consumer-groups/" + n.group, nil},
		{"GET", "/api/v1/consumer-groups/lagging?minLag=0", nil},
		{"GET", "/api/v1/dlq", nil},
		{"GET", "/api/v1/dlq?" + q + "&consumerGroup=" + n.group, nil},
		{"GET", "/api/v1/messages?" + q, nil},
		{"GET", "/api/v1/messages?namespace=" + n.namespace, nil},
		{"GET", "/api/v1/messages?task=" + n.task + "&partition=" + n.partition, nil},
		{"GET", "/api/v1/traces/by-name/" + n.trace, nil},
		{"GET", "/api/v1/traces/names", nil},
		{"GET", "/api/v1/kv/" + n.ns + "/" + n.key, nil},
		{"POST", "/api/v1/kv", kvOps(map[string]any{"op": "get", "ns": n.ns, "key": n.key},
			map[string]any{"op": "getMany", "ns": n.ns, "keys": []string{n.key}}, map[string]any{"op": "getPrefix", "ns": n.ns, "prefix": n.key[:1]})},
		{"GET", "/api/v1/resources/kv/namespaces", nil},
		{"POST", "/api/v1/resources/kv/list", map[string]any{"namespace": n.ns}},
		{"POST", "/api/v1/locks", kvOps(map[string]any{"op": "get", "name": n.lock}, map[string]any{"op": "get", "name": n.sem})},
		{"GET", "/api/v1/timers/" + n.queue + "/" + n.timer, nil},
		{"GET", "/api/v1/timers/" + n.queue, nil},
		{"GET", "/api/v1/timers/" + n.queue + "?mode=count", nil},
		{"GET", "/api/v1/ephemeral/queues", nil},
		{"GET", "/api/v1/ephemeral/queues/" + n.eph + "/depth", nil},
		{"GET", "/api/v1/ephemeral/pop?queue=" + n.eph + "&group=g", nil},
		{"GET", "/api/v1/pop/queue/" + n.queue + "?consumerGroup=" + n.group + "&subscriptionMode=all", nil},
		{"GET", "/api/v1/pop/queue/" + n.queue + "/partition/" + n.partition, nil},
		{"GET", "/api/v1/pop?namespace=" + n.namespace, nil},
		{"GET", "/api/v1/pop?task=" + n.task + "&consumerGroup=" + n.group, nil},
		// Writes that would change the other tenant's data if they reached it.
		{"DELETE", "/api/v1/kv/" + n.ns + "/" + n.key, nil},
		{"POST", "/api/v1/kv", kvOps(map[string]any{"op": "delete", "ns": n.ns, "key": n.key})},
		{"DELETE", "/api/v1/timers/" + n.queue + "/" + n.timer + "?txn=tm-1", nil},
		{"POST", "/api/v1/timers", kvOps(map[string]any{"op": "cancel", "queue": n.queue, "timerKey": n.timer})},
		{"POST", "/api/v1/transaction", map[string]any{"positions": []any{map[string]any{"queue": n.queue, "consumerGroup": n.group,
			"partition": n.partition, "offset": 3}}}},
		{"POST", "/api/v1" + gq + "/seek", map[string]any{"toEnd": true}},
		{"POST", "/api/v1" + gq + "/partitions/" + n.partition + "/seek", map[string]any{"toEnd": true}},
		{"DELETE", "/api/v1" + gq, nil},
		{"DELETE", "/api/v1/consumer-groups/" + n.group, nil},
		{"DELETE", "/api/v1/dlq?" + q, nil},
		{"DELETE", "/api/v1/resources/queues/" + n.queue, nil},
		{"POST", "/api/v1/ephemeral/reset", map[string]any{"queue": n.eph}},
		{"DELETE", "/api/v1/ephemeral/queue/" + n.eph, nil},
	}
}

// idProbes are the requests that name one of d's ids (the partition's, the
// lease's, the letter's, the lock's token, the KV row's version, the
// ephemeral delivery's). Each is answered as for an id never issued.
func (d tenantData) idProbes() []probe {
	ack := map[string]any{"transactionId": "t2", "partitionId": d.pid, "consumerGroup": "workers", "leaseId": d.lease}
	return []probe{
		{"POST", "/api/v1/ack", ack},
		{"POST", "/api/v1/ack", map[string]any{"transactionId": "t3", "partitionId": d.pid, "consumerGroup": "workers", "status": "failed"}},
		{"POST", "/api/v1/ack/batch", map[string]any{"consumerGroup": "workers", "acknowledgments": []any{ack}}},
		{"POST", "/api/v1/lease/" + d.lease + "/extend", map[string]any{"seconds": 60}},
		{"POST", "/api/v1/lease/" + d.lease + "/extend", nil},
		{"POST", "/api/v1/dlq/" + d.letter + "/replay", nil},
		{"POST", "/api/v1/dlq/" + d.letter + "/replay", map[string]any{"queue": "elsewhere"}},
		{"GET", "/api/v1/messages/" + d.pid + "/t2", nil},
		{"POST", "/api/v1/messages/" + d.pid + "/t1", nil},
		{"DELETE", "/api/v1/messages/" + d.pid + "/t3", nil},
		{"GET", "/api/v1/traces/" + d.pid + "/t2", nil},
		{"POST", "/api/v1/transaction", map[string]any{"operations": []any{map[string]any{"type": "ack", "transactionId": "t2",
			"partitionId": d.pid, "consumerGroup": "workers", "leaseId": d.lease}}}},
		{"POST", "/api/v1/transaction", map[string]any{"requiredLeases": []string{d.lease},
			"kv": []any{map[string]any{"op": "get", "ns": "cfg", "key": "k1"}}}},
		{"POST", "/api/v1/locks", map[string]any{"operations": []any{map[string]any{"op": "release", "name": "door", "token": json.Number(d.token)}}}},
		{"POST", "/api/v1/locks", map[string]any{"operations": []any{map[string]any{"op": "renew", "name": "door", "token": json.Number(d.token), "ttlSeconds": 60}}}},
		{"POST", "/api/v1/kv", map[string]any{"operations": []any{map[string]any{"op": "put", "ns": "cfg", "key": "k1",
			"value": "B", "forever": true, "expect": json.Number(d.version)}}}},
		{"POST", "/api/v1/kv", map[string]any{"operations": []any{map[string]any{"op": "check", "ns": "cfg", "key": "k1", "expect": json.Number(d.version)}}}},
		{"POST", "/api/v1/ephemeral/ack", map[string]any{"queue": "eph", "group": "g", "acks": []any{map[string]any{"id": d.ephID}}}},
	}
}

// never is d with ids nobody issued, of the same forms.
func (d tenantData) never() tenantData {
	return tenantData{pid: "987654321", lease: "01990000-0000-7000-8000-00000000dead", letter: "01990000-0000-8000-8000-00000000beef",
		token: "987654322", version: "987654323", ephID: strings.Replace(d.ephID, "-1-1-", "-7fffffff-1-", 1)}
}

// swap replaces never's ids in an answer by d's, so that an answer to
// never's probe reads as the answer to d's would if d's ids were unknown.
func (d tenantData) swap(never tenantData, s string) string {
	return strings.NewReplacer(never.pid, d.pid, never.lease, d.lease, never.letter, d.letter, never.token, d.token,
		never.version, d.version, never.ephID, d.ephID).Replace(s)
}

// TestTenancyIsolation: on one node with QUEEN_TENANCY_HEADER=true, tenant
// A writes in every family; tenant B, under the same names, then reads,
// lists, pops, acks, seeks, deletes, purges, releases and cancels what A
// wrote, and every answer is, byte for byte (but for stamps and minted
// ids), the one B gets under names nobody created, with none of A's names
// in B's lists and nothing only A's data holds in any answer; by A's ids
// (partition, lease, letter, lock token, KV version, ephemeral delivery)
// every answer is the one ids nobody issued get. B's throughput counts
// none of A's messages. A's data is unchanged; B then writes under the
// same names and gets its own (pushes queued at offset 0, not
// duplicates; its own lock, timer, letter and partition id; its timer
// fires into its own queue), and A's data is still unchanged. The system
// tenant cannot be named.
//
// It runs on one node, then on a follower of three: every call goes
// through that node, whose answers follow what it applied.
func TestTenancyIsolation(t *testing.T) {
	for _, size := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d nodes", size), func(t *testing.T) {
			nodes := cluster(t, size, "QUEEN_TENANCY_HEADER=true")
			startAll(nodes)
			n := nodes[0]
			if size > 1 {
				_, followers := leaderOf(t, nodes)
				n = followers[0]
			}
			isolation(t, n)
		})
	}
}

func isolation(t *testing.T, n *node) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	a, b := tenant{t, n, tenantA}, tenant{t, n, tenantB}
	da := a.write(ctx)
	reads := da.reads()
	before := a.snapshot(ctx, reads)

	// What only A's data holds: its tenant id (in every payload, trace,
	// KV value), its lock's owner and its position's metadata.
	secrets := []string{tenantA, "owner-" + tenantA[:4], "m-" + tenantA[:4]}
	ghosts := namesProbes(nobody)
	for i, p := range namesProbes(written) {
		g := ghosts[i]
		wantCode, want := b.do(ctx, g.method, g.path, g.body)
		code, got := b.do(ctx, p.method, p.path, p.body)
		if code != wantCode || stable(got) != strings.ReplaceAll(stable(want), nobodyPrefix, "") {
			t.Errorf("%s: tenant B got %d %s\nunder names nobody created %d %s", p, code, got, wantCode, want)
		}
		for _, s := range secrets {
			if strings.Contains(string(got), s) {
				t.Errorf("%s: tenant B's answer holds A's %q: %s", p, s, got)
			}
		}
		if g.String() == p.String() && fmt.Sprint(g.body) == fmt.Sprint(p.body) { // a list: none of A's names either
			for _, name := range []string{written.queue, written.group, written.ns, written.lock, written.sem, written.trace, written.eph,
				written.namespace, written.task} {
				if strings.Contains(string(got), `"`+name+`"`) {
					t.Errorf("%s: tenant B's list names A's %q: %s", p, name, got)
				}
			}
		}
	}
	var st struct {
		Throughput struct {
			Current, Totals struct{ Pushed, Delivered int }
		}
	}
	b.want(ctx, 200, "GET", "/api/v1/status", nil, &st)
	if tp := st.Throughput; tp.Current.Pushed+tp.Totals.Pushed+tp.Current.Delivered+tp.Totals.Delivered != 0 {
		t.Errorf("tenant B's throughput counts A's messages: %+v", tp)
	}
	never := da.never()
	unknown := never.idProbes()
	for i, p := range da.idProbes() {
		u := unknown[i]
		wantCode, want := b.do(ctx, u.method, u.path, u.body)
		code, got := b.do(ctx, p.method, p.path, p.body)
		if code != wantCode || stable(got) != da.swap(never, stable(want)) {
			t.Errorf("%s with A's ids: tenant B got %d %s\nids nobody issued get %d %s", p, code, got, wantCode, want)
		}
	}
	// A trace of A's message through B is B's own, naming no queue.
	var tr struct{ Queue, Partition *string }
	b.want(ctx, 201, "POST", "/api/v1/traces", map[string]any{"transactionId": "t2", "partitionId": da.pid, "data": 1}, &tr)
	if tr.Queue != nil || tr.Partition != nil {
		t.Errorf("tenant B's trace of A's partition id names queue %v partition %v", tr.Queue, tr.Partition)
	}
	a.unchanged(ctx, reads, before, "tenant B's reads")

	// B writes under the same names: every family gives it its own.
	db := b.write(ctx)
	if db.pid == da.pid || db.letter == da.letter {
		t.Errorf("tenant B's partition id %s and letter %s are A's (%s, %s)", db.pid, db.letter, da.pid, da.letter)
	}
	var recs struct{ Entries []fetchEntry }
	b.want(ctx, 200, "POST", "/api/v1/fetch", map[string]any{"entries": []any{map[string]any{"queue": "orders", "partition": "p1", "offset": 0}}}, &recs)
	for _, r := range recs.Entries[0].Records {
		if !strings.Contains(string(r.Payload), tenantB) {
			t.Errorf("tenant B fetches %s", r.Payload)
		}
	}
	a.unchanged(ctx, reads, before, "tenant B's writes under the same names")

	// /metrics/prometheus counts each tenant's messages in a series of its own.
	resp, exposition, err := n.send(ctx, "GET", "/metrics/prometheus", nil, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/metrics/prometheus: %v", err)
	}
	for _, want := range []string{`queen_messages_total{event="pushed",tenant="` + tenantA + `"} 5`,
		`queen_messages_total{event="pushed",tenant="` + tenantB + `"} 5`, `queen_messages_total{event="pushed",tenant=""} 0`} {
		if !strings.Contains(string(exposition), want) {
			t.Errorf("/metrics/prometheus lacks %s", want)
		}
	}

	// The system tenant is the control plane's: no request can name it.
	sys := tenant{t, n, systemTenant}
	for _, p := range []probe{{"GET", "/api/v1/resources/queues", nil}, {"GET", "/api/v1/kv/cfg/k1", nil},
		{"POST", "/api/v1/push", map[string]any{"items": []any{map[string]any{"queue": "orders", "payload": 1}}}}} {
		code, raw := sys.do(ctx, p.method, p.path, p.body)
		var e struct{ Error, Code string }
		json.Unmarshal(raw, &e)
		if code != 400 || e.Code != "bad_request" || !strings.Contains(e.Error, "x-queen-tenant") {
			t.Errorf("%s as the system tenant: %d %s, want 400 bad_request naming x-queen-tenant", p, code, raw)
		}
	}
}

// TestTenancyLake: with tenancy on, the default tenant and tenant B push
// to queues of the same name, partition and transactionIds; the sink of
// the environment (the default tenant's) writes the default tenant's
// records only, under tenant=<default>/ alone, and B's never reach its
// bucket.
func TestTenancyLake(t *testing.T) {
	const defaultTenant = "00000000-0000-0000-0000-000000000001"
	gw := s3test.Versitygw(t)
	gw.Bucket(t, "lake")
	n := cluster(t, 1, sinkEnv(gw, "lake", "QUEEN_TENANCY_HEADER=true")...)[0]
	startAll([]*node{n})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b := tenant{t, n, tenantB}
	var items, bItems []pushItem
	for i := range 3 {
		items = append(items, pushItem{Queue: "orders", Partition: "cust-1", TransactionID: fmt.Sprint("o-", i),
			Payload: json.RawMessage(fmt.Sprintf(`{"tenant":"default","i":%d}`, i))})
		bItems = append(bItems, pushItem{Queue: "orders", Partition: "cust-1", TransactionID: fmt.Sprint("o-", i),
			Payload: json.RawMessage(fmt.Sprintf(`{"tenant":%q,"i":%d}`, tenantB, i))})
	}
	b.want(ctx, 201, "POST", "/api/v1/push", map[string]any{"items": bItems}, nil)
	if _, err := n.push(ctx, items...); err != nil {
		t.Fatal(err)
	}
	b.want(ctx, 201, "POST", "/api/v1/push", map[string]any{"items": []pushItem{{Queue: "orders", Partition: "cust-2",
		Payload: json.RawMessage(fmt.Sprintf(`{"tenant":%q,"i":3}`, tenantB))}}}, nil)
	var payloads []string
	waitFor(t, "the default tenant's three records in the lake", 60*time.Second, func() bool {
		payloads = nil
		for _, k := range listBucket(t, gw, "lake") {
			if !strings.HasPrefix(k, "queen/tenant="+defaultTenant+"/") && !strings.HasPrefix(k, "queen/_queen/tenant="+defaultTenant+"/") {
				t.Fatalf("bucket key %s is not under the default tenant", k)
			}
			if !strings.Contains(k, "/_queen/") || !strings.Contains(k, "/windows/") {
				continue
			}
			m, err := lakeformat.DecodeManifest(getObject(t, gw, "lake", k))
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range m.Objects {
				recs, err := lakeformat.Decode(getObject(t, gw, "lake", o.Key), m.Format, m.Codec)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range recs {
					payloads = append(payloads, r.Partition+" "+string(r.Payload))
				}
			}
		}
		return len(payloads) >= 3
	})
	want := []string{`cust-1 {"tenant":"default","i":0}`, `cust-1 {"tenant":"default","i":1}`, `cust-1 {"tenant":"default","i":2}`}
	if !slices.Equal(payloads, want) {
		t.Fatalf("the lake holds %q, want the default tenant's %q", payloads, want)
	}
	var recs struct{ Entries []fetchEntry }
	b.want(ctx, 200, "POST", "/api/v1/fetch", map[string]any{"entries": []any{map[string]any{"queue": "orders", "partition": "cust-1", "offset": 0}}}, &recs)
	if got := recs.Entries[0].Records; len(got) != 3 || !strings.Contains(string(got[2].Payload), tenantB) {
		t.Fatalf("tenant B's orders: %+v", recs)
	}
}

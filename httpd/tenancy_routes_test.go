package httpd

import (
	"strings"
	"testing"
)

// tenantRequest is a request of one /api/v1 route (route: "METHOD
// /pattern" as the route table has it) and the broker method it calls
// with the request's tenant. A route may have more than one, for the
// branches that call another method.
type tenantRequest struct {
	route, target, body, call string
}

// tenantRequests are the requests of every /api/v1 route that calls the
// broker with a tenant, in the order of the route table.
var tenantRequests = []tenantRequest{
	{"POST /push", "/api/v1/push", `{"items":[{"queue":"q","payload":1}]}`, "Push"},
	{"POST /fetch", "/api/v1/fetch", `{"entries":[{"queue":"q","offset":0}]}`, "Fetch"},
	{"POST /fetch/offsets", "/api/v1/fetch/offsets", `{"entries":[{"queue":"q","timestamp":0}]}`, "FetchOffsets"},
	{"POST /partitions/changed", "/api/v1/partitions/changed", `{"entries":[]}`, "PartitionsChanged"},
	{"POST /configure", "/api/v1/configure", `{"queue":"q"}`, "Configure"},
	{"POST /kv", "/api/v1/kv", `[]`, "KV"},
	{"GET /kv/{ns}/*", "/api/v1/kv/a/k", ``, "KV"},
	{"PUT /kv/{ns}/*", "/api/v1/kv/a/k", `{"value":1}`, "KV"},
	{"DELETE /kv/{ns}/*", "/api/v1/kv/a/k", ``, "KV"},
	{"GET /resources/queues", "/api/v1/resources/queues", ``, "Queues"},
	{"GET /resources/queues/{queue}", "/api/v1/resources/queues/q", ``, "Queue"},

	{"GET /status", "/api/v1/status", ``, "QueueStats"},
	{"GET /status/queues", "/api/v1/status/queues", ``, "QueueStats"},
	{"GET /status/queues/{queue}", "/api/v1/status/queues/q", ``, "QueueStats"},
	{"GET /status/analytics", "/api/v1/status/analytics", ``, "QueueStats"},
	{"GET /resources/overview", "/api/v1/resources/overview", ``, "QueueStats"},
	{"GET /resources/namespaces", "/api/v1/resources/namespaces", ``, "QueueStats"},
	{"GET /resources/tasks", "/api/v1/resources/tasks", ``, "QueueStats"},
	{"GET /resources/partitions", "/api/v1/resources/partitions", ``, "QueueStats"},
	{"GET /resources/queues/{queue}/depth", "/api/v1/resources/queues/q/depth", ``, "QueueStats"},

	{"GET /pop", "/api/v1/pop?namespace=n", ``, "Pop"},
	{"GET /pop", "/api/v1/pop?task=t", ``, "Pop"},
	{"GET /pop/queue/{queue}", "/api/v1/pop/queue/q", ``, "Pop"},
	{"GET /pop/queue/{queue}/partition/{partition}", "/api/v1/pop/queue/q/partition/p", ``, "Pop"},
	{"POST /ack", "/api/v1/ack", `{"transactionId":"t","partitionId":"1"}`, "Ack"},
	{"POST /ack/batch", "/api/v1/ack/batch", `{"acknowledgments":[{"transactionId":"t","partitionId":"1"}]}`, "Ack"},
	{"POST /lease/{leaseId}/extend", "/api/v1/lease/l/extend", `{"seconds":5}`, "ExtendLease"},

	{"POST /transaction", "/api/v1/transaction", `{"operations":[{"type":"push","queue":"q","payload":1}]}`, "Transaction"},

	{"GET /consumer-groups/lagging", "/api/v1/consumer-groups/lagging", ``, "ConsumerGroups"},
	{"GET /consumer-groups", "/api/v1/consumer-groups", ``, "ConsumerGroups"},
	{"GET /consumer-groups/{group}", "/api/v1/consumer-groups/g", ``, "ConsumerGroup"},
	{"DELETE /consumer-groups/{group}", "/api/v1/consumer-groups/g", ``, "DeleteConsumerGroup"},
	{"DELETE /consumer-groups/{group}/queues/{queue}", "/api/v1/consumer-groups/g/queues/q", ``, "DeleteConsumerGroup"},
	{"POST /consumer-groups/{group}/subscription", "/api/v1/consumer-groups/g/subscription",
		`{"subscriptionTimestamp":"2026-12-01T10:00:00Z"}`, "SetSubscription"},
	{"DELETE /resources/queues/{queue}", "/api/v1/resources/queues/q", ``, "DeleteQueue"},
	{"POST /consumer-groups/{group}/queues/{queue}/seek", "/api/v1/consumer-groups/g/queues/q/seek", `{"toEnd":true}`,
		"SeekConsumerGroup"},
	{"POST /consumer-groups/{group}/queues/{queue}/partitions/{partition}/seek",
		"/api/v1/consumer-groups/g/queues/q/partitions/p/seek", `{"timestamp":"2025-09-22T10:15:30Z"}`, "SeekConsumerGroup"},
	{"GET /dlq", "/api/v1/dlq", ``, "DLQ"},
	{"DELETE /dlq", "/api/v1/dlq?queue=q", ``, "PurgeDLQ"},
	{"POST /dlq/{id}/replay", "/api/v1/dlq/d1/replay", ``, "ReplayDLQ"},
	{"GET /messages", "/api/v1/messages?queue=q", ``, "Messages"},
	{"GET /messages/{partitionId}/*", "/api/v1/messages/7/t/1", ``, "Message"},
	{"POST /messages/{partitionId}/*", "/api/v1/messages/7/t/1/retry", `{}`, "RetryMessage"},
	{"DELETE /messages/{partitionId}/*", "/api/v1/messages/7/t/1", ``, "DeleteMessage"},

	{"POST /locks", "/api/v1/locks", `{"operations":[{"op":"acquire","name":"a","ttlSeconds":30,"owner":"o"}]}`, "Locks"},

	{"POST /timers", "/api/v1/timers",
		`{"operations":[{"op":"schedule","queue":"q","timerKey":"k","delayMs":1,"payload":"eyJhIjoxfQ=="}]}`, "Timers"},
	{"GET /timers/{queue}", "/api/v1/timers/q", ``, "ListTimers"},
	{"GET /timers/{queue}", "/api/v1/timers/q?mode=count&prefix=a", ``, "CountTimers"},
	{"GET /timers/{queue}/*", "/api/v1/timers/q/k", ``, "PeekTimer"},
	{"DELETE /timers/{queue}/*", "/api/v1/timers/q/k", ``, "Timers"},

	{"POST /traces", "/api/v1/traces", clientTrace, "RecordTrace"},
	{"GET /traces/names", "/api/v1/traces/names", ``, "TraceNames"},
	{"GET /traces/by-name/*", "/api/v1/traces/by-name/check/out", ``, "TracesByName"},
	{"GET /traces/{partitionId}/*", "/api/v1/traces/42/a/b", ``, "TracesOf"},

	{"GET /resources/kv/namespaces", "/api/v1/resources/kv/namespaces", ``, "KVNamespaces"},
	{"POST /resources/kv/list", "/api/v1/resources/kv/list", `{"namespace":"app"}`, "KVList"},

	{"POST /ephemeral/push", "/api/v1/ephemeral/push", `{"queue":"q","messages":[{"payload":1}]}`, "EphemeralPush"},
	{"GET /ephemeral/pop", "/api/v1/ephemeral/pop?queue=q", ``, "EphemeralPop"},
	{"POST /ephemeral/ack", "/api/v1/ephemeral/ack", `{"queue":"q","acks":[{"id":"a"}]}`, "EphemeralAck"},
	{"POST /ephemeral/configure", "/api/v1/ephemeral/configure", `{"queue":"q"}`, "EphemeralConfigure"},
	{"POST /ephemeral/reset", "/api/v1/ephemeral/reset", `{"queue":"q"}`, "EphemeralReset"},
	{"DELETE /ephemeral/queue/{queue}", "/api/v1/ephemeral/queue/q", ``, "EphemeralDelete"},
	{"GET /ephemeral/queues", "/api/v1/ephemeral/queues", ``, "EphemeralQueues"},
	{"GET /ephemeral/queues/{queue}/depth", "/api/v1/ephemeral/queues/q/depth", ``, "EphemeralDepth"},
}

// noTenantRoute is a route of /api/v1 that gives the broker no tenant:
// a request of it, and why it takes none.
type noTenantRoute struct {
	target, body, why string
}

// noTenantRoutes are the /api/v1 routes that call the broker with no
// tenant, or not at all, by "METHOD /pattern".
var noTenantRoutes = map[string]noTenantRoute{
	"POST /stats/refresh": {"/api/v1/stats/refresh", ``, "answers a constant: the broker keeps no stats to refresh"},
	"GET /analytics/system-metrics": {"/api/v1/analytics/system-metrics", ``,
		"a node-wide report (ClassNode) of the node's own metrics, read from the registry"},
	"GET /analytics/worker-metrics": {"/api/v1/analytics/worker-metrics", ``,
		"a node-wide report (ClassNode) of the node's HTTP series, read from the registry"},
	"HEAD /pop":               {"/api/v1/pop?namespace=n", ``, "404 no_such_route: a pop is not a safe method"},
	"HEAD /pop/queue/{queue}": {"/api/v1/pop/queue/q", ``, "404 no_such_route: a pop is not a safe method"},
	"HEAD /pop/queue/{queue}/partition/{partition}": {"/api/v1/pop/queue/q/partition/p", ``, "404 no_such_route: a pop is not a safe method"},
	"HEAD /ephemeral/pop":                           {"/api/v1/ephemeral/pop?queue=q", ``, "404 no_such_route: a pop is not a safe method"},
	"GET /raft/members":                             {"/api/v1/raft/members", ``, "the cluster's membership: Cluster.Members takes no tenant"},
	"POST /raft/members/replace": {"/api/v1/raft/members/replace", `{"nodeId":3,"newNodeId":4}`,
		"a change of the cluster (ClassCluster): Cluster.ReplaceMember takes no tenant"},
}

// fullServer is a server of every part, whose route table is the whole
// of /api/v1.
func fullServer() *server {
	f := allBroker{&traceFake{fakeBroker: &fakeBroker{}}}
	p := PartsOf(f)
	return &server{b: f, c: p.Consumer, t: p.Transactor, a: p.Admin, kc: p.KVConsole, l: p.Locker, tm: p.Timerer, st: p.Statuser,
		e: p.Ephemeral, tr: p.Tracer, sm: p.Streamer, cl: p.Cluster}
}

// TestTenancyRoutesListed: every route of the route table (apiRoutes)
// is in tenantRequests or noTenantRoutes, not both, and each of those
// names a route of the table: a route added to the table without a
// tenancy case fails here.
func TestTenancyRoutesListed(t *testing.T) {
	table := map[string]bool{}
	for _, a := range fullServer().apiRoutes() {
		key := a.method + " " + a.pattern
		table[key] = true
		if !a.on {
			t.Errorf("%s is off over a server of every part: give fullServer the part", key)
		}
	}
	cased := map[string]bool{}
	for _, c := range tenantRequests {
		cased[c.route] = true
		if !table[c.route] {
			t.Errorf("tenantRequests has %s, which is not in the route table", c.route)
		}
	}
	for key := range noTenantRoutes {
		if !table[key] {
			t.Errorf("noTenantRoutes has %s, which is not in the route table", key)
		}
	}
	for key := range table {
		_, no := noTenantRoutes[key]
		switch {
		case cased[key] && no:
			t.Errorf("%s is in tenantRequests and in noTenantRoutes", key)
		case !cased[key] && !no:
			t.Errorf("%s has no tenancy case: add a request to tenantRequests, or the route to noTenantRoutes with why", key)
		}
	}
}

// TestTenancyEveryRoute: every broker call of an /api route gets the
// request's tenant (tenancyCases): the default one without tenancy (the
// header ignored) or without the header, the header's with tenancy on;
// a bad header is refused before any broker call. The call is the one
// the route makes, and the only one.
func TestTenancyEveryRoute(t *testing.T) {
	for _, r := range tenantRequests {
		method, _, _ := strings.Cut(r.route, " ")
		for _, c := range tenancyCases {
			t.Run(method+" "+r.target+" "+c.name, func(t *testing.T) {
				f := allBroker{&traceFake{fakeBroker: answerKV(`{"results":[{"index":0}]}`)}}
				e := newEnvOf(t, f, f.fakeBroker, Options{TenancyHeader: c.on})
				if _, ok := c.ask(t, e, method, r.target, r.body); !ok {
					return
				}
				if got := e.fb.only(t); got.method != r.call || got.tenant != c.tenant {
					t.Fatalf("broker got %s for tenant %q, want %s for %q", got.method, got.tenant, r.call, c.tenant)
				}
			})
		}
	}
}

// TestTenancyNoTenantRoutes: a route of noTenantRoutes, asked with
// tenancy on and a tenant in the header, makes no call the fake records:
// none of the broker's methods that take a tenant (nor Health or
// Status; Cluster's, which take none, are not recorded).
func TestTenancyNoTenantRoutes(t *testing.T) {
	for key, r := range noTenantRoutes {
		t.Run(key, func(t *testing.T) {
			method, _, _ := strings.Cut(key, " ")
			f := allBroker{&traceFake{fakeBroker: &fakeBroker{}}}
			e := newEnvOf(t, f, f.fakeBroker, Options{TenancyHeader: true})
			e.do(t, method, r.target, r.body, TenantHeader, tenancyID)
			if calls := f.calls; len(calls) != 0 {
				t.Fatalf("%s is listed as taking no tenant (%s), but the broker got %v", key, r.why, calls)
			}
		})
	}
}

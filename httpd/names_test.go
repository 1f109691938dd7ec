package httpd

import (
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/queen-mq/queen-go/contract"
)

// long is a name over every bound of contract.Names: 300 KiB.
var long = strings.Repeat("n", 300<<10)

// nameCase is one request that carries one over-long name, and the answer
// the contract gives it.
type nameCase struct {
	what           string
	method, target string
	body           string
	status         int
	code           string // the engine code, or the KV reason
}

func tooLongName(what, method, target, body string) nameCase {
	return nameCase{what, method, target, body, http.StatusRequestEntityTooLarge, CodeNameTooLong}
}

// routeNames lists, for every route the API serves, the names it takes
// and a request with each one over-long. A route with no name has an empty
// list. TestEveryRouteBoundsItsNames fails when a route is missing here,
// so a new route has to say what it does with its names.
func routeNames() map[string][]nameCase {
	L := long
	return map[string][]nameCase{
		"GET /":                                nil, // the dashboard page: no name
		"GET /dashboard/*":                     nil, // an asset name the embed holds, else 404
		"GET /health":                          nil,
		"GET /status":                          nil,
		"GET /metrics/prometheus":              nil,
		"GET /api/v1/resources/queues":         nil,
		"POST /api/v1/stats/refresh":           nil,
		"GET /api/v1/consumer-groups":          nil,
		"GET /api/v1/consumer-groups/lagging":  nil,
		"GET /api/v1/resources/kv/namespaces":  nil,
		"GET /metrics":                         nil,
		"GET /api/v1/analytics/system-metrics": nil,
		"GET /api/v1/analytics/worker-metrics": nil,
		"GET /api/v1/status":                   nil,
		"GET /api/v1/status/analytics":         nil,
		"GET /api/v1/resources/overview":       nil,
		"GET /api/v1/resources/namespaces":     nil,
		"GET /api/v1/resources/tasks":          nil,
		"GET /api/v1/status/queues": {
			tooLongName("namespace", "GET", "/api/v1/status/queues?namespace="+L, ""),
			tooLongName("task", "GET", "/api/v1/status/queues?task="+L, ""),
		},
		"GET /api/v1/status/queues/{queue}": {
			tooLongName("queue", "GET", "/api/v1/status/queues/"+L, ""),
		},
		"GET /api/v1/resources/partitions": {
			tooLongName("queue", "GET", "/api/v1/resources/partitions?queue="+L, ""),
		},
		"GET /api/v1/resources/queues/{queue}/depth": {
			tooLongName("queue", "GET", "/api/v1/resources/queues/"+L+"/depth", ""),
			tooLongName("group", "GET", "/api/v1/resources/queues/q/depth?group="+L, ""),
			tooLongName("consumerGroup", "GET", "/api/v1/resources/queues/q/depth?consumerGroup="+L, ""),
		},
		"POST /api/v1/resources/kv/list": {
			{"namespace", "POST", "/api/v1/resources/kv/list", `{"namespace":"` + L + `"}`, 400, ReasonKVBadNamespace},
			{"prefix", "POST", "/api/v1/resources/kv/list", `{"namespace":"a","prefix":"` + L + `"}`, 413, ReasonKVKeyTooLarge},
		},
		"POST /api/v1/push": {
			tooLongName("queue", "POST", "/api/v1/push", `{"items":[{"queue":"`+L+`","payload":1}]}`),
			tooLongName("partition", "POST", "/api/v1/push", `{"items":[{"queue":"q","partition":"`+L+`","payload":1}]}`),
			{"transactionId", "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1,"transactionId":"` + L + `"}]}`, 400, CodeBadRequest},
		},
		"POST /api/v1/fetch": {
			tooLongName("queue", "POST", "/api/v1/fetch", `{"entries":[{"queue":"`+L+`","offset":0}]}`),
			tooLongName("partition", "POST", "/api/v1/fetch", `{"entries":[{"queue":"q","partition":"`+L+`","offset":0}]}`),
		},
		"POST /api/v1/fetch/offsets": {
			tooLongName("queue", "POST", "/api/v1/fetch/offsets", `{"entries":[{"queue":"`+L+`","timestamp":0}]}`),
			tooLongName("partition", "POST", "/api/v1/fetch/offsets", `{"entries":[{"queue":"q","partition":"`+L+`","timestamp":0}]}`),
		},
		"POST /api/v1/partitions/changed": {
			tooLongName("queue", "POST", "/api/v1/partitions/changed", `{"entries":[{"queue":"`+L+`"}]}`),
			{"after", "POST", "/api/v1/partitions/changed", `{"entries":[{"queue":"q","after":"` + L + `"}]}`, 400, CodeBadRequest},
		},
		"POST /api/v1/configure": {
			tooLongName("queue", "POST", "/api/v1/configure", `{"queue":"`+L+`"}`),
			tooLongName("namespace", "POST", "/api/v1/configure", `{"queue":"q","options":{"namespace":"`+L+`"}}`),
			tooLongName("task", "POST", "/api/v1/configure", `{"queue":"q","options":{"task":"`+L+`"}}`),
		},
		"POST /api/v1/kv": {
			{"ns", "POST", "/api/v1/kv", `[{"op":"get","ns":"` + L + `","key":"k"}]`, 400, ReasonKVBadNamespace},
			{"key", "POST", "/api/v1/kv", `[{"op":"get","ns":"a","key":"` + L + `"}]`, 413, ReasonKVKeyTooLarge},
		},
		"GET /api/v1/kv/{ns}/*": {
			{"ns", "GET", "/api/v1/kv/" + L + "/k", "", 400, ReasonKVBadNamespace},
			{"key", "GET", "/api/v1/kv/a/" + L, "", 413, ReasonKVKeyTooLarge},
		},
		"PUT /api/v1/kv/{ns}/*":    {{"key", "PUT", "/api/v1/kv/a/" + L, `{"value":1,"forever":true}`, 413, ReasonKVKeyTooLarge}},
		"DELETE /api/v1/kv/{ns}/*": {{"key", "DELETE", "/api/v1/kv/a/" + L, "", 413, ReasonKVKeyTooLarge}},
		"GET /api/v1/resources/queues/{queue}": {
			tooLongName("queue", "GET", "/api/v1/resources/queues/"+L, ""),
		},
		"GET /api/v1/messages/{partitionId}/*": {
			{"transactionId", "GET", "/api/v1/messages/7/" + L, "", 400, CodeBadRequest},
		},
		"DELETE /api/v1/messages/{partitionId}/*": {
			{"transactionId", "DELETE", "/api/v1/messages/7/" + L, "", 400, CodeBadRequest},
		},
		"POST /api/v1/messages/{partitionId}/*": {
			{"transactionId", "POST", "/api/v1/messages/7/" + L + "/retry", "{}", 400, CodeBadRequest},
		},
		"DELETE /api/v1/resources/queues/{queue}": {
			tooLongName("queue", "DELETE", "/api/v1/resources/queues/"+L, ""),
		},
		"GET /api/v1/pop": {
			tooLongName("namespace", "GET", "/api/v1/pop?namespace="+L, ""),
			tooLongName("task", "GET", "/api/v1/pop?task="+L, ""),
			tooLongName("consumerGroup", "GET", "/api/v1/pop?task=t&consumerGroup="+L, ""),
		},
		"GET /api/v1/pop/queue/{queue}": {
			tooLongName("queue", "GET", "/api/v1/pop/queue/"+L, ""),
			tooLongName("consumerGroup", "GET", "/api/v1/pop/queue/q?consumerGroup="+L, ""),
		},
		"GET /api/v1/pop/queue/{queue}/partition/{partition}": {
			tooLongName("partition", "GET", "/api/v1/pop/queue/q/partition/"+L, ""),
		},
		"POST /api/v1/ack": {
			tooLongName("consumerGroup", "POST", "/api/v1/ack", `{"transactionId":"t","partitionId":"1","consumerGroup":"`+L+`"}`),
			{"transactionId", "POST", "/api/v1/ack", `{"transactionId":"` + L + `","partitionId":"1"}`, 400, CodeBadRequest},
			{"leaseId", "POST", "/api/v1/ack", `{"transactionId":"t","partitionId":"1","leaseId":"` + L + `"}`, 400, CodeBadRequest},
		},
		"POST /api/v1/ack/batch": {
			tooLongName("consumerGroup", "POST", "/api/v1/ack/batch", `{"consumerGroup":"`+L+`","acknowledgments":[{"transactionId":"t","partitionId":"1"}]}`),
			tooLongName("item consumerGroup", "POST", "/api/v1/ack/batch", `{"acknowledgments":[{"transactionId":"t","partitionId":"1","consumerGroup":"`+L+`"}]}`),
		},
		"POST /api/v1/lease/{leaseId}/extend": {
			{"leaseId", "POST", "/api/v1/lease/" + L + "/extend", `{"seconds":1}`, 400, CodeBadRequest},
		},
		"POST /api/v1/transaction": {
			tooLongName("push queue", "POST", "/api/v1/transaction", `{"operations":[{"type":"push","queue":"`+L+`","payload":1}]}`),
			tooLongName("ack group", "POST", "/api/v1/transaction", `{"operations":[{"type":"ack","transactionId":"t","partitionId":"1","consumerGroup":"`+L+`"}]}`),
			{"kv key", "POST", "/api/v1/transaction", `{"operations":[],"kv":[{"op":"put","ns":"a","key":"` + L + `","value":1,"forever":true}]}`, 413, ReasonKVKeyTooLarge},
			{"requiredLeases", "POST", "/api/v1/transaction", `{"operations":[{"type":"push","queue":"q","payload":1}],"requiredLeases":["` + L + `"]}`, 400, CodeBadRequest},
		},
		"GET /api/v1/consumer-groups/{group}": {
			tooLongName("group", "GET", "/api/v1/consumer-groups/"+L, ""),
		},
		"DELETE /api/v1/consumer-groups/{group}": {
			tooLongName("group", "DELETE", "/api/v1/consumer-groups/"+L, ""),
		},
		"DELETE /api/v1/consumer-groups/{group}/queues/{queue}": {
			tooLongName("queue", "DELETE", "/api/v1/consumer-groups/g/queues/"+L, ""),
		},
		"POST /api/v1/consumer-groups/{group}/subscription": {
			tooLongName("group", "POST", "/api/v1/consumer-groups/"+L+"/subscription", `{"subscriptionTimestamp":"2026-01-01T00:00:00Z"}`),
		},
		"POST /api/v1/consumer-groups/{group}/queues/{queue}/seek": {
			tooLongName("group", "POST", "/api/v1/consumer-groups/"+L+"/queues/q/seek", `{"toEnd":true}`),
		},
		"POST /api/v1/consumer-groups/{group}/queues/{queue}/partitions/{partition}/seek": {
			tooLongName("partition", "POST", "/api/v1/consumer-groups/g/queues/q/partitions/"+L+"/seek", `{"toEnd":true}`),
		},
		"GET /api/v1/dlq": {
			tooLongName("queue", "GET", "/api/v1/dlq?queue="+L, ""),
			tooLongName("consumerGroup", "GET", "/api/v1/dlq?consumerGroup="+L, ""),
		},
		"DELETE /api/v1/dlq": {
			tooLongName("queue", "DELETE", "/api/v1/dlq?queue="+L, ""),
			tooLongName("consumerGroup", "DELETE", "/api/v1/dlq?queue=q&consumerGroup="+L, ""),
		},
		"POST /api/v1/dlq/{id}/replay": {
			{"id", "POST", "/api/v1/dlq/" + L + "/replay", "", 400, CodeBadRequest},
			tooLongName("queue", "POST", "/api/v1/dlq/0195f3a2-7b4c-7d1e-9c2b-3f4a5b6c7d8e/replay", `{"queue":"`+L+`"}`),
		},
		"GET /api/v1/ephemeral/queues": nil,
		"POST /api/v1/ephemeral/push": {
			tooLongName("queue", "POST", "/api/v1/ephemeral/push", `{"queue":"`+L+`","messages":[{"payload":1}]}`),
			tooLongName("partition", "POST", "/api/v1/ephemeral/push", `{"queue":"q","partition":"`+L+`","messages":[{"payload":1}]}`),
		},
		"GET /api/v1/ephemeral/pop": {
			tooLongName("queue", "GET", "/api/v1/ephemeral/pop?queue="+L, ""),
			tooLongName("partition", "GET", "/api/v1/ephemeral/pop?queue=q&partition="+L, ""),
			tooLongName("group", "GET", "/api/v1/ephemeral/pop?queue=q&group="+L, ""),
			tooLongName("consumerGroup", "GET", "/api/v1/ephemeral/pop?queue=q&consumerGroup="+L, ""),
		},
		"POST /api/v1/ephemeral/ack": {
			tooLongName("queue", "POST", "/api/v1/ephemeral/ack", `{"queue":"`+L+`","acks":[{"id":"a"}]}`),
			tooLongName("group", "POST", "/api/v1/ephemeral/ack", `{"queue":"q","group":"`+L+`","acks":[{"id":"a"}]}`),
			{"id", "POST", "/api/v1/ephemeral/ack", `{"queue":"q","acks":[{"id":"` + L + `"}]}`, 400, CodeBadRequest},
		},
		"POST /api/v1/ephemeral/configure": {
			tooLongName("queue", "POST", "/api/v1/ephemeral/configure", `{"queue":"`+L+`"}`),
		},
		"POST /api/v1/ephemeral/reset": {
			tooLongName("queue", "POST", "/api/v1/ephemeral/reset", `{"queue":"`+L+`"}`),
		},
		"DELETE /api/v1/ephemeral/queue/{queue}": {
			tooLongName("queue", "DELETE", "/api/v1/ephemeral/queue/"+L, ""),
		},
		"GET /api/v1/ephemeral/queues/{queue}/depth": {
			tooLongName("queue", "GET", "/api/v1/ephemeral/queues/"+L+"/depth", ""),
		},
		"GET /api/v1/messages": {
			tooLongName("queue", "GET", "/api/v1/messages?queue="+L, ""),
			tooLongName("partition", "GET", "/api/v1/messages?queue=q&partition="+L, ""),
			tooLongName("namespace", "GET", "/api/v1/messages?namespace="+L, ""),
		},
	}
}

// TestEveryRouteBoundsItsNames walks every route the API serves and sends
// each of its names over-long: the answer is the contract's (413
// name_too_long for queues, partitions, groups and the other names of the
// table; the KV and id codes where the contract names others), with an
// error body under 1 KiB, and the broker is never called.
func TestEveryRouteBoundsItsNames(t *testing.T) {
	e := newEnv(t, nil, Options{})
	table := routeNames()
	walked := map[string]bool{}
	err := chi.Walk(e.h.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if method == http.MethodHead {
			return nil // HEAD is GET's route (or refused)
		}
		k := method + " " + route
		walked[k] = true
		if _, ok := table[k]; !ok {
			t.Errorf("route %s is not in routeNames: say what it does with an over-long name", k)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, cases := range table {
		if !walked[k] {
			t.Errorf("routeNames lists %s, which the API does not serve", k)
		}
		for _, c := range cases {
			t.Run(k+" "+c.what, func(t *testing.T) {
				fb := &fakeBroker{}
				e := newEnv(t, fb, Options{})
				w := e.do(t, c.method, c.target, c.body)
				if w.Code != c.status {
					t.Fatalf("status %d, want %d: %.300s", w.Code, c.status, w.Body)
				}
				var b errBody
				decode(t, w, &b)
				if b.Code != c.code && b.Reason != c.code {
					t.Fatalf("body %s, want code %s", w.Body, c.code)
				}
				if w.Body.Len() >= 1024 {
					t.Fatalf("error body of %d bytes", w.Body.Len())
				}
				fb.none(t)
			})
		}
	}
	if len(walked) < 30 {
		t.Fatalf("walked only %d routes: %v", len(walked), walked)
	}
}

// TestLimitsAgreeWithContract: httpd's exported limits are the contract's
// figures, for callers that read them from here.
func TestLimitsAgreeWithContract(t *testing.T) {
	pairs := []struct {
		name      string
		got, want int64
	}{
		{"MaxPopBatch", MaxPopBatch, contract.PopBatch.Max},
		{"MaxPopPartitions", MaxPopPartitions, contract.PopPartitions.Max},
		{"MaxPopTimeout", MaxPopTimeout.Milliseconds(), contract.PopTimeout.Max},
		{"DefaultPopTimeout", DefaultPopTimeout.Milliseconds(), 30000},
		{"MaxFetchMaxBytes", MaxFetchMaxBytes, contract.FetchMaxBytes.Max},
		{"MaxFetchWaitMs", MaxFetchWaitMs, contract.FetchMaxWait.Max},
		{"MaxChangedLimit", MaxChangedLimit, contract.ChangedLimit.Max},
		{"MaxDLQLimit", MaxDLQLimit, contract.ListLimit.Max},
		{"MaxMessagesLimit", MaxMessagesLimit, contract.ListLimit.Max},
		{"MaxAckBatch", MaxAckBatch, contract.AckBatch.Max},
		{"MaxKVKeyBytes", MaxKVKeyBytes, int64(contract.KVKey.MaxBytes)},
		{"MaxKVNamespaceBytes", MaxKVNamespaceBytes, int64(contract.KVNamespace.MaxBytes)},
		{"MaxTransactionIDBytes", MaxTransactionIDBytes, int64(contract.TransactionID.MaxBytes)},
	}
	for _, p := range pairs {
		if p.got != p.want {
			t.Errorf("%s is %d, the contract says %d", p.name, p.got, p.want)
		}
	}
}

package inproc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// keepTenant holds data no fuzzed request can reach (they all go to the
// default tenant): it must come through the fuzzing unchanged.
const keepTenant = "00000000-0000-0000-0000-0000000000aa"

// The data written before the fuzzing: records of keepQueue in both
// tenants and a KV row of keepTenant.
const (
	keepQueue = "fuzz-keep"
	keepNS    = "keep"
	keepKey   = "row"
)

var keepOnce sync.Once

// keep writes the data the fuzzing must not change, once per process.
func keep(t testing.TB) {
	keepOnce.Do(func() {
		for _, tenant := range []string{"", keepTenant} {
			h := []string{}
			if tenant != "" {
				h = []string{"x-queen-tenant", tenant}
			}
			w := node.Do(ctx(t), "POST", "/api/v1/push", []byte(`{"items":[`+
				`{"queue":"fuzz-keep","partition":"p","payload":{"a":42.00},"transactionId":"k0"},`+
				`{"queue":"fuzz-keep","partition":"p","payload":"zürich ✓","transactionId":"k1"},`+
				`{"queue":"fuzz-keep","partition":"p","payload":[1, 2 ,3],"transactionId":"k2"}]}`), h...)
			if w.Code != 201 {
				t.Fatalf("keep push: %d %s", w.Code, w.Body)
			}
		}
		w := node.Do(ctx(t), "PUT", "/api/v1/kv/keep/row", []byte(`{"value":{"v":1},"forever":true}`), "x-queen-tenant", keepTenant)
		if w.Code != 200 {
			t.Fatalf("keep kv: %d %s", w.Code, w.Body)
		}
	})
}

// kept reads the kept data back: records of both tenants and the row.
func kept(t testing.TB) string {
	var b strings.Builder
	for _, h := range [][]string{nil, {"x-queen-tenant", keepTenant}} {
		w := node.Do(ctx(t), "POST", "/api/v1/fetch", []byte(`{"entries":[{"queue":"fuzz-keep","partition":"p","offset":0,"maxBytes":8388608}]}`), h...)
		var got struct {
			Entries []struct {
				Records []struct {
					Offset        int64
					TransactionID string
					Payload       json.RawMessage
				}
			}
		}
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != 200 || len(got.Entries) != 1 {
			t.Fatalf("read the kept records: %d %s", w.Code, w.Body)
		}
		// The first three records are the kept ones (a fuzzed push may
		// append to the default tenant's queue: that changes none of them).
		recs := got.Entries[0].Records
		if len(recs) > 3 {
			recs = recs[:3]
		}
		for _, r := range recs {
			fmt.Fprintf(&b, "%d %s %s\n", r.Offset, r.TransactionID, r.Payload)
		}
	}
	w := node.Do(ctx(t), "GET", "/api/v1/kv/keep/row", nil, "x-queen-tenant", keepTenant)
	var row struct {
		Value   json.RawMessage
		Version uint64
	}
	if err := json.Unmarshal(w.Body.Bytes(), &row); err != nil {
		t.Fatalf("read the kept row: %d %s", w.Code, w.Body)
	}
	fmt.Fprintf(&b, "%s %d\n", row.Value, row.Version)
	return b.String()
}

// deadline bounds one fuzzed request: a pop or fetch that asks to wait
// longer is cut short, and its 503 timeout is then the harness's doing.
const deadline = 300 * time.Millisecond

// FuzzHTTP sends any request to every route of the real broker (one node,
// raft and all): no answer is a 5xx (but the 503 timeout of a wait this
// harness cut short), no request panics, and the records and KV row
// written before the fuzzing come back unchanged. Its seeds are the
// hostile inputs of issue 11 and a valid request per route.
func FuzzHTTP(f *testing.F) {
	M := strings.Repeat("n", 2<<20)
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	seeds := []struct{ method, target, body string }{
		{"POST", "/api/v1/configure", `{"queue":"q1","options":{"dedupWindowSeconds":9223372036854775807}}`},
		{"POST", "/api/v1/configure", `{"queue":"q1","options":{"dedupWindowSeconds":1e400}}`},
		{"POST", "/api/v1/configure", `{"queue":"q1","options":{"retentionEnabled":true,"retentionSeconds":9223372036854775807}}`},
		{"POST", "/api/v1/configure", `{"queue":"q1","options":{"completedRetentionSeconds":1e400,"leaseTime":-1}}`},
		{"POST", "/api/v1/push", `{"items":[{"queue":"q1","partition":"p","payload":1,"transactionId":"same-id"}]}`},
		{"POST", "/api/v1/push", "{\"items\":[{\"queue\":\"q1\",\"payload\":1,\"transactionId\":\"x\xff\"}]}"},
		{"POST", "/api/v1/push", `{"items":[{"queue":"q1","payload":1,"transactionId":"x\ud800"}]}`},
		{"POST", "/api/v1/push", "{\"items\":[{\"queue\":\"q1\",\"payload\":\"a\xffb\"}]}"},
		{"POST", "/api/v1/push", `{"items":[{"queue":"` + M + `","payload":1}]}`},
		{"POST", "/api/v1/push", `{"items":[{"queue":"a\u0000b","partition":"..","payload":1}]}`},
		{"POST", "/api/v1/push", `{"items":[{"queue":"fuzz-keep","partition":"p","payload":1}]}`},
		{"POST", "/api/v1/push", `{"items":[{"queue":"q","payload":` + deep + `}]}`},
		{"GET", "/api/v1/pop/queue/q1?leaseSeconds=99999999999999999999", ""},
		{"GET", "/api/v1/pop/queue/q1?consumerGroup=g&subscriptionMode=all&batch=10&wait=true&timeout=100", ""},
		{"GET", "/api/v1/pop?namespace=n", ""},
		{"POST", "/api/v1/ack", `{"transactionId":"same-id","partitionId":"1","consumerGroup":"g"}`},
		{"POST", "/api/v1/ack/batch", `{"acknowledgments":[{"transactionId":"t","partitionId":"1","status":"failed"}]}`},
		{"POST", "/api/v1/lease/l/extend", `{"seconds":1e400}`},
		{"POST", "/api/v1/fetch", `{"entries":[{"queue":"fuzz-keep","partition":"p","offset":0}],"maxWaitMs":100,"minBytes":99999}`},
		{"POST", "/api/v1/fetch/offsets", `{"entries":[{"queue":"q1","timestamp":1e400}]}`},
		{"POST", "/api/v1/partitions/changed", `{"entries":[{"queue":"q1","since":"2025-01-01","limit":-1}]}`},
		{"POST", "/api/v1/kv", `[{"op":"put","ns":"app","key":"k","value":1,"ttlSeconds":9223372036854775807}]`},
		{"PUT", "/api/v1/kv/app/k", `{"value":{"a":1},"forever":true}`},
		{"GET", "/api/v1/kv/app/k", ""},
		{"DELETE", "/api/v1/kv/app/k", `{"expect":1}`},
		{"POST", "/api/v1/transaction", `{"operations":[{"type":"push","queue":"q1","payload":1}],"kv":[{"op":"incr","ns":"app","key":"n","delta":1e400,"forever":true}]}`},
		{"GET", "/api/v1/resources/queues/q1", ""},
		{"GET", "/api/v1/resources/queues/q1/depth?group=g&consumerGroup=g", ""},
		{"GET", "/api/v1/resources/partitions?queue=q1&limit=99999999999999999999", ""},
		{"GET", "/api/v1/status/queues?namespace=n&offset=99999999999999999999", ""},
		{"GET", "/api/v1/status/queues/fuzz-keep", ""},
		{"GET", "/api/v1/status/analytics?from=2025-01-01&to=1969-01-01", ""},
		{"GET", "/api/v1/resources/overview", ""},
		{"GET", "/api/v1/consumer-groups/lagging?minLag=99999999999999999999", ""},
		{"POST", "/api/v1/consumer-groups/g/queues/q1/seek", `{"timestamp":"1969-01-01"}`},
		{"DELETE", "/api/v1/consumer-groups/g", ""},
		{"GET", "/api/v1/dlq?queue=q1&limit=1000", ""},
		{"POST", "/api/v1/dlq/0195f3a2-7b4c-7d1e-9c2b-3f4a5b6c7d8e/replay", `{"queue":"q1"}`},
		{"DELETE", "/api/v1/dlq?queue=q1", ""},
		{"GET", "/api/v1/messages?queue=q1&offset=99999999999999999999", ""},
		{"GET", "/api/v1/resources/kv/namespaces", ""},
		{"POST", "/api/v1/resources/kv/list", `{"namespace":"app","prefix":"k","limit":1e400,"includeExpired":true}`},
		{"POST", "/api/v1/locks", `{"operations":[{"op":"acquire","name":"l","ttlSeconds":30,"owner":"o","limit":3},{"op":"get","name":"m"}]}`},
		{"POST", "/api/v1/locks", `{"operations":[{"op":"renew","name":"l","token":1e400,"ttlSeconds":1,"slot":1023}]}`},
		{"POST", "/api/v1/timers", `{"operations":[{"op":"schedule","queue":"q1","timerKey":"k/x","delayMs":10,"txn":"t","payload":"eyJhIjoxfQ=="}]}`},
		{"POST", "/api/v1/timers", `{"operations":[{"op":"schedule","queue":"q1","timerKey":"z","delayMs":1,"payload":"KLUv/SACEQAAMQ==","payloadZstd":true}]}`},
		{"DELETE", "/api/v1/timers/q1/k/x?txn=t", ""},
		{"GET", "/api/v1/timers/q1/k%2Fx", ""},
		{"GET", "/api/v1/timers/q1?mode=count&prefix=k", ""},
		{"POST", "/api/v1/transaction", `{"timers":[{"op":"cancel","queue":"q1","timerKey":"z"}],"positions":[{"queue":"fuzz-keep","consumerGroup":"g","partition":"p","offset":null}]}`},
		{"GET", "/health", ""},
		{"GET", "/status", ""},
		{"POST", "/api/v1/stats/refresh", ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.target, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, method, target string, body []byte) {
		keep(t)
		before := kept(t)
		c, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		r, err := http.NewRequestWithContext(c, method, target, bytes.NewReader(body))
		if err != nil || r.URL.Path == "" || r.URL.Path[0] != '/' {
			return // not a request a client could send
		}
		r.RequestURI = target
		w := httptest.NewRecorder()
		start := time.Now()
		node.Handler.ServeHTTP(w, r)
		if w.Code >= 500 && !(w.Code == http.StatusServiceUnavailable && time.Since(start) >= deadline &&
			strings.Contains(w.Body.String(), `"code":"timeout"`)) {
			t.Fatalf("%s %.200q: %d %.400s", method, target, w.Code, w.Body)
		}
		if after := kept(t); after != before {
			t.Fatalf("%s %.200q changed the data written before it:\n%s\nnow:\n%s", method, target, before, after)
		}
	})
}

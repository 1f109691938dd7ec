package httpd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/contract"
)

// traceFake is a Broker that is a Tracer too; its calls are recorded in
// the fakeBroker's list.
type traceFake struct {
	*fakeBroker
	record func(ctx context.Context, tenant string, ev TraceEvent) (TraceRow, error)
	of     func(ctx context.Context, tenant string, uid uint64, txid string, limit int) ([]TraceRow, bool, error)
	byName func(ctx context.Context, tenant string, q TraceNameQuery) ([]TraceRow, bool, error)
	names  func(ctx context.Context, tenant string, q TraceNamesQuery) ([]TraceNameCount, bool, error)
}

var _ Tracer = (*traceFake)(nil)

// ofArg is what TracesOf was called with.
type ofArg struct {
	uid   uint64
	txid  string
	limit int
}

// RecordTrace answers the event as stored at a fixed stamp, of a known
// partition, by default.
func (f *traceFake) RecordTrace(ctx context.Context, tenant string, ev TraceEvent) (TraceRow, error) {
	f.fakeBroker.record("RecordTrace", tenant, ev)
	if f.record != nil {
		return f.record(ctx, tenant, ev)
	}
	return TraceRow{ID: [16]byte{0, 6, 0x3f, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0}, PartitionID: ev.PartitionID,
		TransactionID: ev.TransactionID, Known: true, Queue: "orders", Partition: "cust/1", ConsumerGroup: ev.ConsumerGroup,
		EventType: ev.EventType, TraceNames: ev.TraceNames, CreatedAt: 1_758_536_130_000_001, ExpiresAt: 1_759_140_930_000_001}, nil
}

func (f *traceFake) TracesOf(ctx context.Context, tenant string, uid uint64, txid string, limit int) ([]TraceRow, bool, error) {
	f.fakeBroker.record("TracesOf", tenant, ofArg{uid, txid, limit})
	if f.of != nil {
		return f.of(ctx, tenant, uid, txid, limit)
	}
	return nil, false, nil
}

func (f *traceFake) TracesByName(ctx context.Context, tenant string, q TraceNameQuery) ([]TraceRow, bool, error) {
	f.fakeBroker.record("TracesByName", tenant, q)
	if f.byName != nil {
		return f.byName(ctx, tenant, q)
	}
	return nil, false, nil
}

func (f *traceFake) TraceNames(ctx context.Context, tenant string, q TraceNamesQuery) ([]TraceNameCount, bool, error) {
	f.fakeBroker.record("TraceNames", tenant, q)
	if f.names != nil {
		return f.names(ctx, tenant, q)
	}
	return nil, false, nil
}

// newTraceEnv serves tf (a fresh one when nil) as newEnv serves a
// fakeBroker.
func newTraceEnv(t *testing.T, tf *traceFake, o Options) (*env, *traceFake) {
	t.Helper()
	if tf == nil {
		tf = &traceFake{}
	}
	if tf.fakeBroker == nil {
		tf.fakeBroker = &fakeBroker{}
	}
	return newEnvOf(t, tf, tf.fakeBroker, o), tf
}

// clientTrace is the body the official client (queen-mq 2.6.0,
// consumer_manager.py) posts for message.trace({...}).
const clientTrace = `{"transactionId":"order-9","partitionId":"42","consumerGroup":"billing",
	"traceNames":["checkout","payment"],"eventType":"info","data":{"step":1,"total":42.00}}`

// TestTraceRecord: the client's body is stored as sent, in the request's
// tenant, and answered 201 with the event as stored (without its data).
func TestTraceRecord(t *testing.T) {
	e, _ := newTraceEnv(t, nil, Options{TenancyHeader: true})
	tenant := "0199718d-0000-7000-8000-00000000000a"
	w := e.do(t, "POST", "/api/v1/traces", clientTrace, TenantHeader, tenant)
	wantJSON(t, w, http.StatusCreated, `{"success":true,"id":"00063f01-0203-0405-0000-000000000000","transactionId":"order-9",
		"partitionId":"42","queue":"orders","partition":"cust/1","consumerGroup":"billing","eventType":"info",
		"traceNames":["checkout","payment"],"createdAt":"2025-09-22T10:15:30.000001Z","expiresAt":"2025-09-29T10:15:30.000001Z"}`)
	c := e.fb.only(t)
	want := TraceEvent{PartitionID: 42, TransactionID: "order-9", ConsumerGroup: "billing", EventType: "info",
		TraceNames: []string{"checkout", "payment"}, Data: json.RawMessage(`{"step":1,"total":42.00}`)}
	if c.method != "RecordTrace" || c.tenant != tenant || !reflect.DeepEqual(c.arg, want) {
		t.Fatalf("call %+v, want %+v", c, want)
	}
}

// TestTraceRecordDefaults: what the body leaves out is defaulted, a
// repeated name kept once, a numeric partitionId read as its digits, and
// an unknown partition answered with null queue and partition.
func TestTraceRecordDefaults(t *testing.T) {
	tf := &traceFake{record: func(_ context.Context, _ string, ev TraceEvent) (TraceRow, error) {
		return TraceRow{PartitionID: ev.PartitionID, TransactionID: ev.TransactionID, ConsumerGroup: ev.ConsumerGroup,
			EventType: ev.EventType, TraceNames: ev.TraceNames, CreatedAt: 1, ExpiresAt: 2}, nil
	}}
	e, _ := newTraceEnv(t, tf, Options{})
	w := e.do(t, "POST", "/api/v1/traces", `{"transactionId":"a/b","partitionId":7,"traceNames":["x","y","x"],
		"consumerGroup":null,"eventType":"","data":  [1, 2]  ,"extra":true}`)
	wantJSON(t, w, http.StatusCreated, `{"success":true,"id":"00000000-0000-0000-0000-000000000000","transactionId":"a/b",
		"partitionId":"7","queue":null,"partition":null,"consumerGroup":"__QUEUE_MODE__","eventType":"info",
		"traceNames":["x","y"],"createdAt":"1970-01-01T00:00:00.000001Z","expiresAt":"1970-01-01T00:00:00.000002Z"}`)
	ev := e.fb.only(t).arg.(TraceEvent)
	if string(ev.Data) != `[1, 2]` {
		t.Fatalf("data %q", ev.Data)
	}
	e, _ = newTraceEnv(t, nil, Options{})
	wantStatus(t, e.do(t, "POST", "/api/v1/traces", `{"transactionId":"t","partitionId":"007","traceNames":null,"data":null}`), http.StatusCreated)
	if ev := e.fb.only(t).arg.(TraceEvent); ev.PartitionID != 7 || ev.TraceNames != nil || string(ev.Data) != "null" {
		t.Fatalf("%+v", ev)
	}
}

// TestTraceRecordRefusals: a field of the wrong type or outside its
// bound is 400 bad_request naming it, and the broker is not called.
func TestTraceRecordRefusals(t *testing.T) {
	names := func(n int) string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf("%q", fmt.Sprint("n", i)))
		}
		return "[" + strings.Join(s, ",") + "]"
	}
	body := func(kv ...string) string {
		m := map[string]string{"transactionId": `"t"`, "partitionId": `"1"`, "data": `{}`}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(m, kv[i])
				continue
			}
			m[kv[i]] = kv[i+1]
		}
		var parts []string
		for k, v := range m {
			parts = append(parts, fmt.Sprintf("%q:%s", k, v))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	long := func(n int) string { return `"` + strings.Repeat("a", n) + `"` }
	cases := []struct{ name, body, msg string }{
		{"no transactionId", body("transactionId", ""), "transactionId is required"},
		{"empty transactionId", body("transactionId", `""`), "transactionId is required"},
		{"transactionId too long", body("transactionId", long(65536)), "transactionId of 65536 bytes is over 65535"},
		{"no partitionId", body("partitionId", ""), "partitionId is required"},
		{"partitionId not digits", body("partitionId", `"p-1"`), `partitionId "p-1" must be a string of decimal digits`},
		{"partitionId negative", body("partitionId", `-1`), "partitionId -1 must be a string of decimal digits or a non-negative integer"},
		{"partitionId beyond uint64", body("partitionId", `"18446744073709551616"`), "partitionId 18446744073709551616 is beyond every partition id"},
		{"consumerGroup with slash", body("consumerGroup", `"a/b"`), "consumerGroup"},
		{"consumerGroup a number", body("consumerGroup", `1`), "consumerGroup must be a string"},
		{"traceNames a string", body("traceNames", `"x"`), "traceNames must be an array of strings or null"},
		{"traceNames[1] a number", body("traceNames", `["x",1]`), "traceNames[1] must be a string"},
		{"traceNames[0] null", body("traceNames", `[null]`), "traceNames[0] must be a string"},
		{"traceNames[0] empty", body("traceNames", `[""]`), "traceNames[0] is empty"},
		{"traceNames[0] too long", body("traceNames", "["+long(257)+"]"), "traceNames[0] of 257 bytes is over 256"},
		{"traceNames[0] control", body("traceNames", `["a\u0007"]`), "traceNames[0]"},
		{"17 names", body("traceNames", names(17)), "traceNames[16]: more than 16 distinct names"},
		{"eventType too long", body("eventType", long(65)), "eventType of 65 bytes is over 64"},
		{"eventType a number", body("eventType", `3`), "eventType must be a string"},
		{"no data", body("data", ""), "data is required"},
		{"data too large", body("data", long(65535)), "data is 65537 bytes, at most 65536"},
		{"not an object", `[1]`, "the body must be an object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, _ := newTraceEnv(t, nil, Options{})
			wantError(t, e.do(t, "POST", "/api/v1/traces", c.body), http.StatusBadRequest, CodeBadRequest, c.msg)
			e.fb.none(t)
		})
	}
	e, _ := newTraceEnv(t, nil, Options{})
	wantStatus(t, e.do(t, "POST", "/api/v1/traces", body("traceNames", names(16)+"", "data", long(65534), "eventType", long(64))), http.StatusCreated)
	if ev := e.fb.only(t).arg.(TraceEvent); len(ev.TraceNames) != 16 || len(ev.Data) != int(contract.TraceData.Max) {
		t.Fatalf("%d names, %d bytes", len(ev.TraceNames), len(ev.Data))
	}
}

// events are two stored events, the second of a partition nobody popped.
var events = []TraceRow{
	{ID: [16]byte{1}, PartitionID: 42, TransactionID: "a/b", Known: true, Queue: "orders", Partition: "cust 1",
		ConsumerGroup: "billing", EventType: "info", TraceNames: []string{"checkout"}, Data: []byte(`{"total":42.00}`),
		CreatedAt: 1_758_536_130_000_001, ExpiresAt: 1_759_140_930_000_001},
	{ID: [16]byte{2}, PartitionID: 42, TransactionID: "a/b", ConsumerGroup: "__QUEUE_MODE__", EventType: "error",
		Data: []byte(`"x"`), CreatedAt: 1_758_536_131_000_000, ExpiresAt: 1_759_140_931_000_000},
}

const eventsJSON = `[{"id":"01000000-0000-0000-0000-000000000000","transactionId":"a/b","partitionId":"42","queue":"orders",
	"partition":"cust 1","consumerGroup":"billing","eventType":"info","data":{"total":42.00},"traceNames":["checkout"],
	"createdAt":"2025-09-22T10:15:30.000001Z","expiresAt":"2025-09-29T10:15:30.000001Z"},
	{"id":"02000000-0000-0000-0000-000000000000","transactionId":"a/b","partitionId":"42","queue":null,"partition":null,
	"consumerGroup":"__QUEUE_MODE__","eventType":"error","data":"x","traceNames":[],
	"createdAt":"2025-09-22T10:15:31.000000Z","expiresAt":"2025-09-29T10:15:31.000000Z"}]`

// TestTracesOf: a message's events, its transactionId the rest of the
// path, unescaped or escaped; limit defaults to 1000 and is clamped.
func TestTracesOf(t *testing.T) {
	tf := &traceFake{of: func(context.Context, string, uint64, string, int) ([]TraceRow, bool, error) { return events, true, nil }}
	e, _ := newTraceEnv(t, tf, Options{})
	for _, path := range []string{"/api/v1/traces/42/a/b", "/api/v1/traces/42/a%2Fb"} {
		e.fb.calls = nil
		w := e.do(t, "GET", path, "")
		wantJSON(t, w, http.StatusOK, `{"partitionId":"42","transactionId":"a/b","traces":`+eventsJSON+`,"count":2,"truncated":true}`)
		if c := e.fb.only(t); c.arg != (ofArg{42, "a/b", 1000}) {
			t.Fatalf("%s: %+v", path, c)
		}
	}
	e.fb.calls = nil
	wantStatus(t, e.do(t, "GET", "/api/v1/traces/0042/t?limit=5000", ""), http.StatusOK)
	if c := e.fb.only(t); c.arg != (ofArg{42, "t", 1000}) {
		t.Fatalf("%+v", c)
	}
	e, _ = newTraceEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/traces/1/none", ""), http.StatusOK,
		`{"partitionId":"1","transactionId":"none","traces":[],"count":0,"truncated":false}`)
	for path, msg := range map[string]string{
		"/api/v1/traces/p1/t":                   `partitionId "p1" must be a string of decimal digits`,
		"/api/v1/traces/18446744073709551616/t": "beyond every partition id",
		"/api/v1/traces/1/":                     "the transactionId is empty",
		"/api/v1/traces/1/t?limit=x":            `limit "x" must be an integer in 1..1000`,
	} {
		e, _ := newTraceEnv(t, nil, Options{})
		wantError(t, e.do(t, "GET", path, ""), http.StatusBadRequest, CodeBadRequest, msg)
		e.fb.none(t)
	}
}

// TestTracesByName: a page of a name's events, its query checked and
// passed on; the name is the rest of the path.
func TestTracesByName(t *testing.T) {
	tf := &traceFake{byName: func(context.Context, string, TraceNameQuery) ([]TraceRow, bool, error) { return events, true, nil }}
	e, _ := newTraceEnv(t, tf, Options{})
	w := e.do(t, "GET", "/api/v1/traces/by-name/check/out?limit=2&offset=4&from=2025-09-22T00:00:00Z&to=2025-09-23", "")
	wantJSON(t, w, http.StatusOK, `{"traceName":"check/out","traces":`+eventsJSON+`,"count":2,"limit":2,"offset":4,"hasMore":true}`)
	want := TraceNameQuery{Name: "check/out", From: 1_758_499_200_000_000, To: 1_758_585_600_000_000, Offset: 4, Limit: 2}
	if c := e.fb.only(t); c.arg != want {
		t.Fatalf("%+v, want %+v", c.arg, want)
	}
	e, _ = newTraceEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/traces/by-name/"+url.PathEscape("café x"), ""), http.StatusOK,
		`{"traceName":"café x","traces":[],"count":0,"limit":100,"offset":0,"hasMore":false}`)
	if c := e.fb.only(t); c.arg != (TraceNameQuery{Name: "café x", Limit: 100}) {
		t.Fatalf("%+v", c.arg)
	}
	for path, msg := range map[string]string{
		"/api/v1/traces/by-name/":                                "the trace name is empty",
		"/api/v1/traces/by-name/" + strings.Repeat("a", 257):     "traceName of 257 bytes is over 256",
		"/api/v1/traces/by-name/n?offset=10001":                  `offset "10001" is outside 0..10000`,
		"/api/v1/traces/by-name/n?from=2025-09-23&to=2025-09-22": "is after to",
		"/api/v1/traces/by-name/n?from=yesterday":                `from "yesterday" must be an ISO-8601 time`,
	} {
		e, _ := newTraceEnv(t, nil, Options{})
		wantError(t, e.do(t, "GET", path, ""), http.StatusBadRequest, CodeBadRequest, msg)
		e.fb.none(t)
	}
}

// TestTraceNames: the names page, with search, after and limit passed on
// and nextAfter the last name of a truncated page.
func TestTraceNames(t *testing.T) {
	tf := &traceFake{names: func(context.Context, string, TraceNamesQuery) ([]TraceNameCount, bool, error) {
		return []TraceNameCount{{Name: "checkout", Count: 3, LastSeenAt: 1_758_536_130_000_001}, {Name: "pay", Count: 1, LastSeenAt: 1}}, true, nil
	}}
	e, _ := newTraceEnv(t, tf, Options{})
	w := e.do(t, "GET", "/api/v1/traces/names?limit=2&search=c&after=b", "")
	wantJSON(t, w, http.StatusOK, `{"names":[{"name":"checkout","count":3,"lastSeenAt":"2025-09-22T10:15:30.000001Z"},
		{"name":"pay","count":1,"lastSeenAt":"1970-01-01T00:00:00.000001Z"}],"count":2,"truncated":true,"nextAfter":"pay"}`)
	if c := e.fb.only(t); c.arg != (TraceNamesQuery{Search: "c", After: "b", Limit: 2}) {
		t.Fatalf("%+v", c.arg)
	}
	e, _ = newTraceEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/traces/names", ""), http.StatusOK, `{"names":[],"count":0,"truncated":false,"nextAfter":null}`)
	if c := e.fb.only(t); c.arg != (TraceNamesQuery{Limit: 100}) {
		t.Fatalf("%+v", c.arg)
	}
	e, _ = newTraceEnv(t, nil, Options{})
	wantError(t, e.do(t, "GET", "/api/v1/traces/names?search="+strings.Repeat("a", 257), ""), http.StatusBadRequest, CodeBadRequest, "search of 257 bytes")
	e.fb.none(t)
}

// TestTraceRoutes: the routes exist only over a Tracer, and only with
// their methods; HEAD is served where GET is.
func TestTraceRoutes(t *testing.T) {
	for _, path := range []string{"/api/v1/traces", "/api/v1/traces/names", "/api/v1/traces/by-name/n", "/api/v1/traces/1/t"} {
		e := newEnv(t, nil, Options{})
		method := "GET"
		if path == "/api/v1/traces" {
			method = "POST"
		}
		wantJSON(t, e.do(t, method, path, clientTrace), http.StatusNotFound, `{"error":"Not Found","code":"no_such_route"}`)
	}
	for _, c := range []struct{ method, path string }{
		{"GET", "/api/v1/traces"}, {"PUT", "/api/v1/traces"}, {"POST", "/api/v1/traces/names"},
		{"DELETE", "/api/v1/traces/1/t"}, {"POST", "/api/v1/traces/by-name/n"}, {"GET", "/api/v1/traces/1"},
		{"GET", "/api/v1/traces/by-name"},
	} {
		e, _ := newTraceEnv(t, nil, Options{})
		wantJSON(t, e.do(t, c.method, c.path, `{}`), http.StatusNotFound, `{"error":"Not Found","code":"no_such_route"}`)
		e.fb.none(t)
	}
	e, _ := newTraceEnv(t, nil, Options{})
	wantStatus(t, e.do(t, "HEAD", "/api/v1/traces/names", ""), http.StatusOK)
}

// TestTraceUnavailable: the unknown-outcome kinds are 503 with their
// code and Retry-After: 1 on every trace route.
func TestTraceUnavailable(t *testing.T) {
	fail := func(err error) *traceFake {
		return &traceFake{
			record: func(context.Context, string, TraceEvent) (TraceRow, error) { return TraceRow{}, err },
			of:     func(context.Context, string, uint64, string, int) ([]TraceRow, bool, error) { return nil, false, err },
			byName: func(context.Context, string, TraceNameQuery) ([]TraceRow, bool, error) { return nil, false, err },
			names:  func(context.Context, string, TraceNamesQuery) ([]TraceNameCount, bool, error) { return nil, false, err },
		}
	}
	routes := []struct{ method, path, body string }{
		{"POST", "/api/v1/traces", clientTrace}, {"GET", "/api/v1/traces/1/t", ""},
		{"GET", "/api/v1/traces/by-name/n", ""}, {"GET", "/api/v1/traces/names", ""},
	}
	for _, k := range []struct {
		err  error
		code string
	}{{ErrTimeout, CodeTimeout}, {ErrNoLeader, CodeNoLeader}, {ErrRetry, CodeRetry}} {
		for _, r := range routes {
			e, _ := newTraceEnv(t, fail(k.err), Options{})
			w := e.do(t, r.method, r.path, r.body)
			wantError(t, w, http.StatusServiceUnavailable, k.code, "")
			if w.Header().Get("Retry-After") != "1" {
				t.Fatalf("%s %s: Retry-After %q", r.method, r.path, w.Header().Get("Retry-After"))
			}
		}
	}
}

// FuzzTraceEventDecode: a traces body decodes to an event within the
// contract's bounds, or to a 4xx refusal; never a panic.
func FuzzTraceEventDecode(f *testing.F) {
	f.Add([]byte(clientTrace))
	f.Add([]byte(`{"transactionId":"t","partitionId":1e3,"traceNames":["a","a",null],"data":null}`))
	f.Add([]byte(`{"transactionId":"t","partitionId":"99999999999999999999","data":{}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := fuzzDecode(t, body, decodeTraceEvent, refusalOK)
		if err != nil {
			return
		}
		if ev.TransactionID == "" || ev.ConsumerGroup == "" || ev.EventType == "" || len(ev.Data) == 0 ||
			len(ev.Data) > int(contract.TraceData.Max) || len(ev.TraceNames) > int(contract.TraceNames.Max) {
			t.Fatalf("%s decoded to %+v", body, ev)
		}
		seen := map[string]bool{}
		for _, n := range ev.TraceNames {
			if seen[n] || contract.TraceName.Check("n", n) != nil {
				t.Fatalf("%s decoded to names %q", body, ev.TraceNames)
			}
			seen[n] = true
		}
		if contract.CheckJSON(ev.Data, contract.MaxJSONDepth) != nil {
			t.Fatalf("data %q is not one JSON value", ev.Data)
		}
	})
}

package httpd

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/httpd/wire"
)

// allBroker serves every optional interface, so that New registers
// every route. Its Locker and Timerer calls are recorded in the
// fakeBroker's list, as the rest; they answer nothing.
type allBroker struct{ *traceFake }

var _ Full = allBroker{}

func (a allBroker) Locks(_ context.Context, tenant string, ops []LockOp) ([]json.Marshaler, error) {
	a.fakeBroker.record("Locks", tenant, ops)
	return nil, nil
}
func (a allBroker) Timers(_ context.Context, tenant string, ops []TimerOp) ([]TimerResult, error) {
	a.fakeBroker.record("Timers", tenant, ops)
	return nil, nil
}
func (a allBroker) PeekTimer(_ context.Context, tenant, queue, key string) (TimerRow, bool, error) {
	a.fakeBroker.record("PeekTimer", tenant, queue+" "+key)
	return TimerRow{}, false, nil
}
func (a allBroker) ListTimers(_ context.Context, tenant, queue, after string, limit int) ([]TimerRow, bool, error) {
	a.fakeBroker.record("ListTimers", tenant, queue)
	return nil, false, nil
}
func (a allBroker) CountTimers(_ context.Context, tenant, queue, prefix string) (int64, error) {
	a.fakeBroker.record("CountTimers", tenant, queue+" "+prefix)
	return 0, nil
}

func (allBroker) Members(context.Context) (Members, error) { return Members{}, nil }
func (allBroker) ReplaceMember(context.Context, uint64, uint64, string) (Members, error) {
	return Members{}, nil
}

var (
	_ Locker   = allBroker{}
	_ Timerer  = allBroker{}
	_ Streamer = allBroker{}
	_ Cluster  = allBroker{}
)

// wantClasses is the route table: every route New registers over a
// broker of every interface, and its access class. A route added without
// a class, or with another, fails TestRouteClasses: look at API.md's
// level for it and at the classes' doc (auth.go), then add it here.
var wantClasses = map[string]Class{
	"GET /health":             ClassPublic,
	"GET /metrics":            ClassPublic,
	"GET /metrics/prometheus": ClassPublic,
	"GET /status":             ClassNode,

	"POST /streams/v1/queries":          ClassConsume,
	"GET /streams/v1/queries":           ClassRead,
	"GET /streams/v1/queries/{name}":    ClassRead,
	"DELETE /streams/v1/queries/{name}": ClassAdmin,
	"POST /streams/v1/state/get":        ClassConsume,
	"POST /streams/v1/cycle":            ClassTxn,

	"POST /api/v1/push":               ClassPush,
	"POST /api/v1/ephemeral/push":     ClassPush,
	"POST /api/v1/timers":             ClassTimers,
	"POST /api/v1/transaction":        ClassTxn,
	"POST /api/v1/fetch":              ClassRead,
	"POST /api/v1/fetch/offsets":      ClassRead,
	"POST /api/v1/partitions/changed": ClassRead,
	"POST /api/v1/stats/refresh":      ClassRead,
	"POST /api/v1/configure":          ClassConfigure,

	"POST /api/v1/kv":                     ClassShared,
	"PUT /api/v1/kv/{ns}/*":               ClassShared,
	"DELETE /api/v1/kv/{ns}/*":            ClassShared,
	"GET /api/v1/kv/{ns}/*":               ClassSharedRead,
	"GET /api/v1/resources/kv/namespaces": ClassSharedRead,
	"POST /api/v1/resources/kv/list":      ClassSharedRead,
	"POST /api/v1/locks":                  ClassShared,
	"GET /api/v1/timers/{queue}":          ClassSharedRead,
	"GET /api/v1/timers/{queue}/*":        ClassSharedRead,
	"DELETE /api/v1/timers/{queue}/*":     ClassShared,

	"GET /api/v1/pop":                                          ClassConsume,
	"HEAD /api/v1/pop":                                         ClassConsume,
	"GET /api/v1/pop/queue/{queue}":                            ClassConsume,
	"HEAD /api/v1/pop/queue/{queue}":                           ClassConsume,
	"GET /api/v1/pop/queue/{queue}/partition/{partition}":      ClassConsume,
	"HEAD /api/v1/pop/queue/{queue}/partition/{partition}":     ClassConsume,
	"POST /api/v1/ack":                                         ClassConsume,
	"POST /api/v1/ack/batch":                                   ClassConsume,
	"POST /api/v1/lease/{leaseId}/extend":                      ClassConsume,
	"GET /api/v1/ephemeral/pop":                                ClassConsume,
	"HEAD /api/v1/ephemeral/pop":                               ClassConsume,
	"POST /api/v1/ephemeral/ack":                               ClassConsume,
	"POST /api/v1/traces":                                      ClassConsume,
	"GET /api/v1/traces/names":                                 ClassRead,
	"GET /api/v1/traces/by-name/*":                             ClassRead,
	"GET /api/v1/traces/{partitionId}/*":                       ClassRead,
	"GET /api/v1/resources/queues":                             ClassRead,
	"GET /api/v1/resources/queues/{queue}":                     ClassRead,
	"GET /api/v1/resources/queues/{queue}/depth":               ClassRead,
	"GET /api/v1/resources/overview":                           ClassRead,
	"GET /api/v1/resources/namespaces":                         ClassRead,
	"GET /api/v1/resources/tasks":                              ClassRead,
	"GET /api/v1/resources/partitions":                         ClassRead,
	"GET /api/v1/status":                                       ClassRead,
	"GET /api/v1/status/queues":                                ClassRead,
	"GET /api/v1/status/queues/{queue}":                        ClassRead,
	"GET /api/v1/status/analytics":                             ClassRead,
	"GET /api/v1/raft/members":                                 ClassNode,
	"GET /":                                                    ClassPublic,
	"GET /dashboard/*":                                         ClassPublic,
	"POST /api/v1/raft/members/replace":                        ClassCluster,
	"GET /api/v1/analytics/system-metrics":                     ClassNode,
	"GET /api/v1/analytics/worker-metrics":                     ClassNode,
	"GET /api/v1/consumer-groups":                              ClassRead,
	"GET /api/v1/consumer-groups/lagging":                      ClassRead,
	"GET /api/v1/consumer-groups/{group}":                      ClassRead,
	"GET /api/v1/dlq":                                          ClassRead,
	"GET /api/v1/messages":                                     ClassRead,
	"GET /api/v1/messages/{partitionId}/*":                     ClassRead,
	"GET /api/v1/ephemeral/queues":                             ClassRead,
	"GET /api/v1/ephemeral/queues/{queue}/depth":               ClassRead,
	"DELETE /api/v1/consumer-groups/{group}":                   ClassAdmin,
	"DELETE /api/v1/consumer-groups/{group}/queues/{queue}":    ClassAdmin,
	"POST /api/v1/consumer-groups/{group}/subscription":        ClassAdmin,
	"POST /api/v1/consumer-groups/{group}/queues/{queue}/seek": ClassAdmin,
	"POST /api/v1/consumer-groups/{group}/queues/{queue}/partitions/{partition}/seek": ClassAdmin,
	"DELETE /api/v1/resources/queues/{queue}":                                         ClassAdmin,
	"DELETE /api/v1/dlq":                      ClassAdmin,
	"POST /api/v1/dlq/{id}/replay":            ClassAdmin,
	"POST /api/v1/messages/{partitionId}/*":   ClassAdmin,
	"DELETE /api/v1/messages/{partitionId}/*": ClassAdmin,
	"POST /api/v1/ephemeral/configure":        ClassAdmin,
	"POST /api/v1/ephemeral/reset":            ClassAdmin,
	"DELETE /api/v1/ephemeral/queue/{queue}":  ClassAdmin,
}

// TestRouteClasses: every route the router of the binary's path
// (NewFull: PartsOf a Full) serves is in the route table with the class
// wantClasses gives it, and the table holds nothing the router does not
// serve.
func TestRouteClasses(t *testing.T) {
	f := allBroker{&traceFake{fakeBroker: &fakeBroker{}}}
	mux, table := build(f, PartsOf(f), Options{})
	served := map[string]bool{}
	err := chi.Walk(mux, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		key := method + " " + strings.ReplaceAll(route, "/*/", "/")
		served[key] = true
		c, ok := table[key]
		switch {
		case !ok:
			t.Errorf("%s is served without an access class (register it with routes.add)", key)
		case wantClasses[key] != c:
			t.Errorf("%s has class %s, want %s", key, c, wantClasses[key])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range table {
		if !served[key] {
			t.Errorf("the table has %s, which is not served", key)
		}
	}
	for key := range wantClasses {
		if !served[key] {
			t.Errorf("wantClasses has %s, which is not served", key)
		}
	}
}

// principal is a Principal of a fixed set of classes.
type principal struct {
	classes []Class
	sub     string
}

func (p principal) Allows(c Class) bool { return slices.Contains(p.classes, c) }
func (p principal) Subject() string     { return p.sub }
func (p principal) Tenant() string      { return "" }
func (p principal) String() string      { return "a test principal" }

// keyAuth recognises "Key <name>" and answers keys[name]; an unknown
// name is refused.
type keyAuth map[string]principal

func (k keyAuth) Authenticate(r *http.Request) (Principal, error) {
	name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Key ")
	if !ok {
		return nil, errors.Join(ErrNoCredential, errors.New("no Key credential"))
	}
	if p, ok := k[name]; ok {
		return p, nil
	}
	return nil, errors.New("unknown key")
}

// tokenAuth recognises "Token <sub>" as a principal of every class.
type tokenAuth struct{}

func (tokenAuth) Authenticate(r *http.Request) (Principal, error) {
	sub, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Token ")
	if !ok {
		return nil, errors.Join(ErrNoCredential, errors.New("no Token credential"))
	}
	return principal{classes: Classes, sub: sub}, nil
}

// unread is a body that fails the test when read.
type unread struct{ t *testing.T }

func (u unread) Read([]byte) (int, error) {
	u.t.Error("the body was read")
	return 0, io.EOF
}

// TestGate: the chain asks each authenticator; 401 and 403 come before
// the body is read, with the engine's envelope; a principal's subject is
// each pushed record's producerSub, whatever the body says.
func TestGate(t *testing.T) {
	auth := []Authenticator{keyAuth{"reader": {classes: []Class{ClassPublic, ClassRead, ClassNode}, sub: "r"},
		"pusher": {classes: []Class{ClassPush}, sub: "svc-p"}}, tokenAuth{}}
	e := newEnv(t, nil, Options{Authenticators: auth, SkipPaths: []string{"/health", "/api/v1/resources/", "/api/v1/kv/", "/"}})
	send := func(method, target, authz string) (int, errBody) {
		r := newRequest(method, target, "")
		r.Body = io.NopCloser(unread{t})
		if authz != "" {
			r.Header.Set("Authorization", authz)
		}
		w := serve(e, r)
		var b errBody
		json.Unmarshal(w.Body.Bytes(), &b)
		return w.Code, b
	}
	for _, c := range []struct {
		method, target, authz string
		status                int
		code, msg             string
	}{
		{"POST", "/api/v1/push", "", 401, CodeUnauthorized, "no Key credential"},
		{"POST", "/api/v1/push", "Basic x", 401, CodeUnauthorized, "no Key credential"},
		{"POST", "/api/v1/push", "Key nobody", 401, CodeUnauthorized, "unknown key"},
		{"POST", "/api/v1/push", "Key reader", 403, CodeForbidden, "a test principal does not reach POST /api/v1/push, a route of class push"},
		{"POST", "/api/v1/configure", "Key pusher", 403, CodeForbidden, "class configure"},
		{"GET", "/status", "", 401, CodeUnauthorized, "no Key credential"},
		// Skip paths: exact, a prefix, the root alone, never with dot
		// segments or doubled slashes.
		{"GET", "/api/v1/resources/..%2f..%2fpush", "", 404, CodeNoSuchRoute, "Not Found"},
		{"GET", "/api/v1/kv/ns/../k", "", 401, CodeUnauthorized, "no Key credential"},
		{"GET", "/api/v1//resources/queues", "", 404, CodeNoSuchRoute, "Not Found"},
		{"POST", "/api/v1/fetch", "", 401, CodeUnauthorized, "no Key credential"},
	} {
		status, b := send(c.method, c.target, c.authz)
		if status != c.status || b.Code != c.code || !strings.Contains(b.Error, c.msg) {
			t.Errorf("%s %s (%s): %d %+v, want %d %s %q", c.method, c.target, c.authz, status, b, c.status, c.code, c.msg)
		}
	}
	for _, target := range []string{"/health", "/api/v1/resources/queues", "/api/v1/kv/ns/k"} {
		if w := e.do(t, "GET", target, ""); w.Code == http.StatusUnauthorized || w.Code == http.StatusForbidden {
			t.Errorf("GET %s (skipped): %d %s", target, w.Code, w.Body)
		}
	}
	if w := e.do(t, "GET", "/status", "", "Authorization", "Key reader"); w.Code != http.StatusOK {
		t.Errorf("reader GET /status: %d %s", w.Code, w.Body)
	}
	if len(e.fb.calls) != 4 { // health, queues, kv, status
		t.Fatalf("the broker saw %d calls", len(e.fb.calls))
	}

	// The second authenticator recognises what the first does not.
	e.fb.calls = nil
	const body = `{"items":[{"queue":"q","payload":1,"producerSub":"mallory"},{"queue":"q","payload":2}]}`
	w := e.do(t, "POST", "/api/v1/push", body, "Authorization", "Token alice@example.com")
	wantStatus(t, w, http.StatusCreated)
	for _, it := range e.fb.only(t).arg.([]PushItem) {
		if it.ProducerSub != "alice@example.com" {
			t.Fatalf("item %+v", it)
		}
	}
	e.fb.calls = nil
	wantStatus(t, e.do(t, "POST", "/api/v1/push", body, "Authorization", "Key pusher"), http.StatusCreated)
	if it := e.fb.only(t).arg.([]PushItem); it[0].ProducerSub != "svc-p" {
		t.Fatalf("items %+v", it)
	}
}

// TestProducerSubWithoutAuth: without authenticators every route is
// open and no record gets a producerSub, whatever the body says.
func TestProducerSubWithoutAuth(t *testing.T) {
	e := newEnv(t, nil, Options{})
	wantStatus(t, e.do(t, "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1,"producerSub":"mallory"}]}`), http.StatusCreated)
	if it := e.fb.only(t).arg.([]PushItem); it[0].ProducerSub != "" {
		t.Fatalf("items %+v", it)
	}
}

// TestProducerSubTxn: a transaction's pushed items carry the subject.
func TestProducerSubTxn(t *testing.T) {
	e := newEnv(t, nil, Options{Authenticators: []Authenticator{tokenAuth{}}})
	body := `{"operations":[{"type":"push","items":[{"queue":"q","payload":1}]},{"type":"push","queue":"q","payload":2}]}`
	wantStatus(t, e.do(t, "POST", "/api/v1/transaction", body, "Authorization", "Token bob"), http.StatusOK)
	req := e.fb.only(t).arg.(TxnRequest)
	if len(req.Pushes) != 2 || req.Pushes[0].Item.ProducerSub != "bob" || req.Pushes[1].Item.ProducerSub != "bob" {
		t.Fatalf("pushes %+v", req.Pushes)
	}
}

// TestProducerSubAnswers: pop (JSON and framed) and fetch answer a
// record's producerSub; fetch only when it has one.
func TestProducerSubAnswers(t *testing.T) {
	id := uuid.New()
	fb := &fakeBroker{
		pop: func(context.Context, string, PopRequest) (PopAnswer, bool, error) {
			return PopAnswer{Queue: "q", Partition: "p", PartitionID: "5", LeaseID: "l", ConsumerGroup: "g", PartitionsClaimed: 1,
				Messages: []PopMessage{
					{ID: id.String(), TransactionID: "a", ProducerSub: `svc "a"`, Data: json.RawMessage(`1`), PartitionID: "5", Queue: "q",
						Partition: "p", LeaseID: "l", ConsumerGroup: "g", DeliveryAttempt: 1, Offset: 0},
					{ID: id.String(), TransactionID: "b", Data: json.RawMessage(`2`), PartitionID: "5", Queue: "q",
						Partition: "p", LeaseID: "l", ConsumerGroup: "g", DeliveryAttempt: 1, Offset: 1},
				}}, true, nil
		},
		fetch: func(context.Context, string, FetchRequest) ([]FetchEntry, error) {
			return []FetchEntry{{Queue: "q", Partition: "p", HighWatermark: 2, Records: []FetchRecord{
				{Offset: 0, TransactionID: "a", Payload: []byte(`1`), Ts: 1, ProducerSub: "alice"},
				{Offset: 1, TransactionID: "b", Payload: []byte(`2`), Ts: 1}}}}, nil
		},
	}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "GET", "/api/v1/pop/queue/q?consumerGroup=g&batch=2", "")
	var pop struct {
		Messages []struct{ ProducerSub *string }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &pop); err != nil || len(pop.Messages) != 2 || pop.Messages[0].ProducerSub == nil ||
		*pop.Messages[0].ProducerSub != `svc "a"` || pop.Messages[1].ProducerSub != nil {
		t.Fatalf("pop %s", w.Body)
	}
	w = e.do(t, "GET", "/api/v1/pop/queue/q?consumerGroup=g&batch=2&frames=true", "")
	p, err := wire.NewDecoder(1 << 20).DecodePop(w.Body.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	fs := p.Claims[0].Records[0].Frames
	if len(fs) != 2 || !fs[0].HasProducer || fs[0].Producer != `svc "a"` || fs[1].HasProducer {
		t.Fatalf("frames %+v", fs)
	}
	w = e.do(t, "POST", "/api/v1/fetch", `{"entries":[{"queue":"q","partition":"p","offset":0}]}`)
	want := `{"entries":[{"queue":"q","partition":"p","records":[` +
		`{"offset":0,"transactionId":"a","payload":1,"ts":"1970-01-01T00:00:00.000001Z","producerSub":"alice"},` +
		`{"offset":1,"transactionId":"b","payload":2,"ts":"1970-01-01T00:00:00.000001Z"}],"highWatermark":2,"logStartOffset":0}]}` + "\n"
	wantBody(t, w, http.StatusOK, want)
}

func TestSkipPaths(t *testing.T) {
	s := newSkipPaths([]string{"/health", "/metrics/prometheus", "/metrics", "/", "/public/", ""})
	for p, want := range map[string]bool{
		"/health": true, "/metrics": true, "/metrics/prometheus": true, "/": true, "/public/x": true, "/public/": true,
		"/health/": false, "/healthz": false, "/api/v1/push": false, "/status": false, "/public": false,
		"/public/../api/v1/push": false, "/public//x": false, "/public/./x": false, "": false, "//": false,
	} {
		if got := s.match(p); got != want {
			t.Errorf("%q: %v, want %v", p, got, want)
		}
	}
}

package httpd

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// popDefaults is the request of a pop of queue q with no query.
func popDefaults() PopRequest {
	return PopRequest{Queue: "q", ConsumerGroup: QueueModeGroup, Batch: 1, Partitions: 1,
		Timeout: DefaultPopTimeout, SubscriptionMode: SubscriptionNew}
}

func TestPopQuery(t *testing.T) {
	with := func(f func(*PopRequest)) PopRequest {
		r := popDefaults()
		f(&r)
		return r
	}
	cases := []struct {
		name, target string
		want         PopRequest
	}{
		{"defaults", "/api/v1/pop/queue/q", popDefaults()},
		{"all given", "/api/v1/pop/queue/q?consumerGroup=g&batch=10000&partitions=64&wait=true&timeout=1500" +
			"&leaseSeconds=30&subscriptionMode=all&subscriptionFrom=2025-09-22T10:15:30.000001Z&commitOnDelivery=true",
			with(func(r *PopRequest) {
				r.ConsumerGroup, r.Batch, r.Partitions, r.Wait, r.Timeout = "g", 10000, 64, true, 1500*time.Millisecond
				r.LeaseSeconds, r.SubscriptionMode, r.SubscriptionFrom, r.AutoAck = 30, "all", 1_758_536_130_000_001, true
			})},
		{"false flags", "/api/v1/pop/queue/q?wait=false&commitOnDelivery=false&conflation=false", popDefaults()},
		{"timeout clamps to 60 s", "/api/v1/pop/queue/q?timeout=90000",
			with(func(r *PopRequest) { r.Timeout = MaxPopTimeout })},
		{"negative timeout clamps to 0", "/api/v1/pop/queue/q?timeout=-5",
			with(func(r *PopRequest) { r.Timeout = 0 })},
		{"timeout 0", "/api/v1/pop/queue/q?timeout=0", with(func(r *PopRequest) { r.Timeout = 0 })},
		{"new-only is new", "/api/v1/pop/queue/q?subscriptionMode=new-only", popDefaults()},
		{"new", "/api/v1/pop/queue/q?subscriptionMode=new", popDefaults()},
		{"from_beginning is all", "/api/v1/pop/queue/q?subscriptionMode=from_beginning",
			with(func(r *PopRequest) { r.SubscriptionMode = SubscriptionAll })},
		{"subscriptionFrom now is new", "/api/v1/pop/queue/q?subscriptionMode=all&subscriptionFrom=now", popDefaults()},
		{"subscriptionFrom with a zone", "/api/v1/pop/queue/q?subscriptionFrom=2025-09-22T12:15:30%2B02:00",
			with(func(r *PopRequest) { r.SubscriptionFrom = 1_758_536_130_000_000 })},
		{"subscriptionFrom at the epoch is 1 µs", "/api/v1/pop/queue/q?subscriptionFrom=1970-01-01T00:00:00Z",
			with(func(r *PopRequest) { r.SubscriptionFrom = 1 })},
		{"autoAck alias", "/api/v1/pop/queue/q?autoAck=true", with(func(r *PopRequest) { r.AutoAck = true })},
		{"both aliases agree", "/api/v1/pop/queue/q?autoAck=true&commitOnDelivery=true",
			with(func(r *PopRequest) { r.AutoAck = true })},
		{"ignored", "/api/v1/pop/queue/q?conflation=false&whatever=1&namespace=n&task=t", popDefaults()},
		{"conflation", "/api/v1/pop/queue/q?conflation=true&consumerGroup=g",
			with(func(r *PopRequest) { r.Conflation, r.ConsumerGroup = true, "g" })},
		{"autopilot sizes the batch", "/api/v1/pop/queue/q?autopilot=true",
			with(func(r *PopRequest) { r.Autopilot, r.Batch = true, AutopilotBatch })},
		{"autopilot keeps a batch given", "/api/v1/pop/queue/q?autopilot=true&batch=7",
			with(func(r *PopRequest) { r.Autopilot, r.Batch = true, 7 })},
		{"empty values are absent", "/api/v1/pop/queue/q?consumerGroup=&batch=&wait=&timeout=&subscriptionMode=", popDefaults()},
		{"first value counts", "/api/v1/pop/queue/q?batch=2&batch=x", with(func(r *PopRequest) { r.Batch = 2 })},
		{"partition", "/api/v1/pop/queue/q/partition/p1", with(func(r *PopRequest) { r.Partition = "p1" })},
		{"escaped partition", "/api/v1/pop/queue/q/partition/eu%20west%2F1",
			with(func(r *PopRequest) { r.Partition = "eu west/1" })},
		{"escaped space only", "/api/v1/pop/queue/q/partition/eu%20west",
			with(func(r *PopRequest) { r.Partition = "eu west" })},
		{"escaped percent", "/api/v1/pop/queue/q/partition/a%252F",
			with(func(r *PopRequest) { r.Partition = "a%2F" })},
		{"escaped queue", "/api/v1/pop/queue/a%20b%2B", with(func(r *PopRequest) { r.Queue = "a b+" })},
		{"discovery by namespace, no long-poll", "/api/v1/pop?namespace=n&wait=true&timeout=1000",
			with(func(r *PopRequest) { r.Queue, r.Namespace, r.Timeout = "", "n", time.Second })},
		{"discovery by task", "/api/v1/pop?task=t&consumerGroup=g",
			with(func(r *PopRequest) { r.Queue, r.Task, r.ConsumerGroup = "", "t", "g" })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			wantStatus(t, e.do(t, "GET", c.target, ""), http.StatusNoContent)
			e.fb.wantCall(t, "Pop", c.want)
		})
	}
}

// TestPopDefaultSubscription: DEFAULT_SUBSCRIPTION_MODE (Options) is the
// mode of a pop that names none; one that names its mode keeps it.
func TestPopDefaultSubscription(t *testing.T) {
	for _, c := range []struct{ target, want string }{
		{"/api/v1/pop/queue/q", SubscriptionAll},
		{"/api/v1/pop/queue/q?subscriptionMode=new", SubscriptionNew},
		{"/api/v1/pop/queue/q?subscriptionFrom=now", SubscriptionNew},
	} {
		e := newEnv(t, nil, Options{DefaultSubscriptionMode: SubscriptionAll})
		wantStatus(t, e.do(t, "GET", c.target, ""), http.StatusNoContent)
		if got := e.fb.only(t).arg.(PopRequest); got.SubscriptionMode != c.want {
			t.Fatalf("%s: mode %q, want %q", c.target, got.SubscriptionMode, c.want)
		}
	}
}

func TestPopRefusals(t *testing.T) {
	cases := []struct{ name, target, msg string }{
		{"batch 0", "?batch=0", `batch "0" is outside 1..10000`},
		{"batch over", "?batch=10001", `batch "10001" is outside 1..10000`},
		{"batch beyond int64", "?batch=99999999999999999999", `batch "99999999999999999999" is outside 1..10000`},
		{"batch not a number", "?batch=ten", `batch "ten" must be an integer`},
		{"batch a fraction", "?batch=1.5", `batch "1.5" must be an integer`},
		{"partitions 0", "?partitions=0", `partitions "0" is outside 1..64`},
		{"partitions over", "?partitions=65", `partitions "65" is outside 1..64`},
		{"partitions not a number", "?partitions=all", `partitions "all" must be an integer`},
		{"wait yes", "?wait=yes", `wait "yes" must be true or false`},
		{"wait 1", "?wait=1", `wait "1" must be true or false`},
		{"timeout a fraction", "?timeout=1.5", `timeout "1.5" must be an integer`},
		{"timeout a duration", "?timeout=5s", `timeout "5s" must be an integer`},
		{"leaseSeconds 0", "?leaseSeconds=0", `leaseSeconds "0" is outside 1..604800 s`},
		{"leaseSeconds negative", "?leaseSeconds=-1", `leaseSeconds "-1" is outside 1..604800 s`},
		{"leaseSeconds not a number", "?leaseSeconds=x", `leaseSeconds "x" must be an integer`},
		{"leaseSeconds beyond int64", "?leaseSeconds=99999999999999999999", `leaseSeconds "99999999999999999999" is outside 1..604800 s`},
		{"leaseSeconds over a week", "?leaseSeconds=604801", `leaseSeconds "604801" is outside 1..604800 s`},
		{"timeout beyond int64", "?timeout=99999999999999999999", `timeout "99999999999999999999" is outside 0..60000 ms`},
		{"consumerGroup with a slash", "?consumerGroup=a%2Fb", `consumerGroup "a/b" holds '/' at byte 1`},
		{"consumerGroup invalid UTF-8", "?consumerGroup=a%FF", `consumerGroup "a\xff" is not valid UTF-8 at byte 1`},
		{"subscriptionMode", "?subscriptionMode=latest", `subscriptionMode "latest" must be new, all, new-only or from_beginning`},
		{"subscriptionFrom not a time", "?subscriptionFrom=yesterday", `subscriptionFrom "yesterday" must be an ISO-8601 time or now`},
		{"subscriptionFrom epoch ms", "?subscriptionFrom=1758536130000", `subscriptionFrom "1758536130000" must be an ISO-8601 time`},
		{"commitOnDelivery", "?commitOnDelivery=maybe", `commitOnDelivery "maybe" must be true or false`},
		{"autoAck", "?autoAck=1", `autoAck "1" must be true or false`},
		{"aliases disagree", "?commitOnDelivery=true&autoAck=false", `commitOnDelivery "true" and autoAck "false" disagree`},
		{"conflation without a group", "?conflation=true", `conflation "true" needs a consumerGroup`},
		{"conflation with commitOnDelivery", "?conflation=true&consumerGroup=g&autoAck=true",
			`conflation "true" cannot be used with commitOnDelivery`},
		{"conflation value", "?conflation=on", `conflation "on" must be true or false`},
		{"malformed query", "?batch=%zz", "the query string is malformed"},
	}
	for _, c := range cases {
		for _, path := range []string{"/api/v1/pop/queue/q", "/api/v1/pop/queue/q/partition/p"} {
			wantRefusal(t, c.name+" "+path, "GET", path+c.target, "", CodeBadRequest, c.msg)
		}
	}
}

func TestPopPathRefusals(t *testing.T) {
	cases := []struct {
		target string
		status int
		code   string
		msg    string
	}{
		{"/api/v1/pop", http.StatusBadRequest, CodeBadRequest, "namespace or task is required"},
		{"/api/v1/pop?namespace=&task=&batch=2", http.StatusBadRequest, CodeBadRequest, "namespace or task is required"},
		{"/api/v1/pop?namespace=n&batch=0", http.StatusBadRequest, CodeBadRequest, `batch "0"`},
		{"/api/v1/pop/queue//partition/p", http.StatusBadRequest, CodeBadRequest, "the queue is empty"},
		{"/api/v1/pop/queue/", http.StatusNotFound, CodeNoSuchRoute, "Not Found"},
		{"/api/v1/pop/queue/q/partition/", http.StatusNotFound, CodeNoSuchRoute, "Not Found"},
	}
	for _, c := range cases {
		wantRefused(t, c.target, "GET", c.target, "", c.status, c.code, c.msg)
	}
}

// TestPopNothing: nothing to lease is a 204 with no body, no Content-Type
// and, on the wire, no Content-Length.
func TestPopNothing(t *testing.T) {
	e := newEnv(t, nil, Options{})
	w := e.do(t, "GET", "/api/v1/pop/queue/q?wait=true&timeout=10", "")
	wantStatus(t, w, http.StatusNoContent)
	if w.Body.Len() != 0 || w.Header().Get("Content-Length") != "" || w.Header().Get("Content-Type") != "" {
		t.Fatalf("204 with body %q and headers %v", w.Body, w.Header())
	}

	srv := httptest.NewServer(e.h)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /api/v1/pop/queue/q HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(bufio.NewReader(conn))
	if err != nil {
		t.Fatal(err)
	}
	head, body, ok := strings.Cut(string(raw), "\r\n\r\n")
	if !ok || !strings.HasPrefix(head, "HTTP/1.1 204 ") || body != "" {
		t.Fatalf("answer on the wire = %q", raw)
	}
	for _, h := range []string{"content-length", "content-type", "transfer-encoding"} {
		if strings.Contains(strings.ToLower(head), h+":") {
			t.Fatalf("204 carries %s: %q", h, head)
		}
	}
}

// TestPopAnswer: the 200 answer, byte for byte: payloads as stored,
// createdAt with six fractional digits, traceId and producerSub null.
func TestPopAnswer(t *testing.T) {
	fb := &fakeBroker{pop: func(context.Context, string, PopRequest) (PopAnswer, bool, error) {
		return PopAnswer{Queue: "q", Partition: "eu west/1", PartitionID: "17", LeaseID: "lease-1", ConsumerGroup: "g",
			PartitionsClaimed: 1, Messages: []PopMessage{
				{ID: "0199718d-1e2b-7cc4-9a3b-6a4b1f0c2d3e", TransactionID: `t"1`, TraceID: "f5881e23-fde4-44d2-97fe-e45776f93a42", Data: []byte(`42.00`),
					CreatedAt: 1_758_536_130_000_001, PartitionID: "17", Queue: "q", Partition: "eu west/1",
					LeaseID: "lease-1", ConsumerGroup: "g", DeliveryAttempt: 2, Offset: 41},
				{ID: "0199718d-1e2b-7cc4-9a3b-6a4b1f0c2d3f", TransactionID: "t2", Data: []byte(`{ "a" :  1 }`),
					PartitionID: "17", Queue: "q", Partition: "eu west/1", LeaseID: "lease-1", ConsumerGroup: "g",
					DeliveryAttempt: 1, Offset: 42},
			}}, true, nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "GET", "/api/v1/pop/queue/q/partition/eu%20west%2F1?consumerGroup=g&batch=2", "")
	want := `{"success":true,"queue":"q","partition":"eu west/1","partitionId":"17","leaseId":"lease-1",` +
		`"consumerGroup":"g","messages":[` +
		`{"id":"0199718d-1e2b-7cc4-9a3b-6a4b1f0c2d3e","transactionId":"t\"1","traceId":"f5881e23-fde4-44d2-97fe-e45776f93a42","data":42.00,` +
		`"producerSub":null,"createdAt":"2025-09-22T10:15:30.000001Z","partitionId":"17","partition":"eu west/1",` +
		`"leaseId":"lease-1","consumerGroup":"g","deliveryAttempt":2,"offset":41},` +
		`{"id":"0199718d-1e2b-7cc4-9a3b-6a4b1f0c2d3f","transactionId":"t2","traceId":null,"data":{ "a" :  1 },` +
		`"producerSub":null,"createdAt":"1970-01-01T00:00:00.000000Z","partitionId":"17","partition":"eu west/1",` +
		`"leaseId":"lease-1","consumerGroup":"g","deliveryAttempt":1,"offset":42}],` +
		`"partitionsClaimed":1}` + "\n"
	wantBody(t, w, http.StatusOK, want)
}

// TestPopConflationAnswer: a pop that asked for conflation is answered the
// group's flags, 200 even when it leased nothing; one that did not ask
// gets a bare 204 for nothing.
func TestPopConflationAnswer(t *testing.T) {
	fb := &fakeBroker{pop: func(_ context.Context, _ string, r PopRequest) (PopAnswer, bool, error) {
		return PopAnswer{Conflation: true, ConflationConflict: !r.Conflation}, false, nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "GET", "/api/v1/pop/queue/q?conflation=true&consumerGroup=g", "")
	wantJSON(t, w, http.StatusOK, `{"success":true,"queue":"","partition":"","partitionId":"","leaseId":"","consumerGroup":"",`+
		`"messages":[],"partitionsClaimed":0,"conflation":true}`)
	wantStatus(t, e.do(t, "GET", "/api/v1/pop/queue/q?consumerGroup=g", ""), http.StatusNoContent)
}

// TestPopAutopilotAnswer: a pop with autopilot=true echoes the width and
// budget it used (the client's AutopilotDecision); one without does not.
func TestPopAutopilotAnswer(t *testing.T) {
	fb := &fakeBroker{pop: func(context.Context, string, PopRequest) (PopAnswer, bool, error) {
		return PopAnswer{Queue: "q", PartitionsClaimed: 1, Messages: []PopMessage{{ID: "0199718d-1e2b-7cc4-9a3b-6a4b1f0c2d3e", TransactionID: "t"}}}, true, nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "GET", "/api/v1/pop/queue/q?autopilot=true&partitions=2", "")
	var a struct {
		Autopilot *struct{ Partitions, Batch int } `json:"autopilot"`
		Messages  []any                            `json:"messages"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil || a.Autopilot == nil || a.Autopilot.Partitions != 2 || a.Autopilot.Batch != AutopilotBatch || len(a.Messages) != 1 {
		t.Fatalf("body %s: %+v %v", w.Body, a, err)
	}
	w = e.do(t, "GET", "/api/v1/pop/queue/q?batch=3", "")
	if strings.Contains(w.Body.String(), "autopilot") {
		t.Fatalf("a pop without autopilot answered %s", w.Body)
	}
}

// TestPopNoMessages: a 200 without messages (the broker said ok) still
// renders an array, and a missing payload is null.
func TestPopNoMessages(t *testing.T) {
	fb := &fakeBroker{pop: func(context.Context, string, PopRequest) (PopAnswer, bool, error) {
		return PopAnswer{Queue: "q", ConsumerGroup: QueueModeGroup, Messages: []PopMessage{{Offset: 3}}}, true, nil
	}}
	e := newEnv(t, fb, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/pop?task=t", ""), http.StatusOK,
		`{"success":true,"queue":"q","partition":"","partitionId":"","leaseId":"","consumerGroup":"__QUEUE_MODE__",
		"messages":[{"id":"","transactionId":"","traceId":null,"data":null,"producerSub":null,
		"createdAt":"1970-01-01T00:00:00.000000Z","partitionId":"","partition":"","leaseId":"","consumerGroup":"",
		"deliveryAttempt":0,"offset":3}],"partitionsClaimed":0}`)
}

// TestPopHead: a pop leases messages, so HEAD is not served as a GET.
func TestPopHead(t *testing.T) {
	for _, target := range []string{"/api/v1/pop/queue/q", "/api/v1/pop/queue/q/partition/p", "/api/v1/pop?namespace=n"} {
		e := newEnv(t, nil, Options{})
		w := e.do(t, "HEAD", target, "")
		wantJSON(t, w, http.StatusNotFound, `{"error":"Not Found","code":"no_such_route"}`)
		e.fb.none(t)
	}
}

// TestConsumeRoutesNeedConsumer: over a Broker that is not a Consumer,
// the consuming routes do not exist, nor, when it is not a Transactor,
// the transaction route, nor, when it is not an Admin, the
// consumer-group, DLQ and messages routes.
func TestConsumeRoutesNeedConsumer(t *testing.T) {
	routes := []struct{ method, target, body string }{
		{"GET", "/api/v1/pop/queue/q", ""},
		{"GET", "/api/v1/pop/queue/q/partition/p", ""},
		{"GET", "/api/v1/pop?namespace=n", ""},
		{"POST", "/api/v1/ack", `{"transactionId":"t","partitionId":"1"}`},
		{"POST", "/api/v1/ack/batch", `{"acknowledgments":[{"transactionId":"t","partitionId":"1"}]}`},
		{"POST", "/api/v1/lease/l/extend", `{"seconds":5}`},
		{"POST", "/api/v1/transaction", `{"operations":[{"type":"push","queue":"q","payload":1}]}`},
		{"GET", "/api/v1/consumer-groups", ""},
		{"GET", "/api/v1/consumer-groups/lagging", ""},
		{"GET", "/api/v1/consumer-groups/g", ""},
		{"DELETE", "/api/v1/consumer-groups/g", ""},
		{"DELETE", "/api/v1/consumer-groups/g/queues/q", ""},
		{"POST", "/api/v1/consumer-groups/g/queues/q/seek", `{"toEnd":true}`},
		{"POST", "/api/v1/consumer-groups/g/queues/q/partitions/p/seek", `{"toEnd":true}`},
		{"GET", "/api/v1/dlq", ""},
		{"POST", "/api/v1/dlq/d1/replay", ""},
		{"DELETE", "/api/v1/dlq?queue=q", ""},
		{"GET", "/api/v1/messages?queue=q", ""},
	}
	fb := &fakeBroker{}
	h := New(brokerOnly{fb}, Options{})
	if _, ok := Broker(brokerOnly{fb}).(Consumer); ok {
		t.Fatal("brokerOnly is a Consumer")
	}
	if _, ok := Broker(brokerOnly{fb}).(Transactor); ok {
		t.Fatal("brokerOnly is a Transactor")
	}
	if _, ok := Broker(brokerOnly{fb}).(Admin); ok {
		t.Fatal("brokerOnly is an Admin")
	}
	for _, r := range routes {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, newRequest(r.method, r.target, r.body))
		wantJSON(t, w, http.StatusNotFound, `{"error":"Not Found","code":"no_such_route"}`)
	}
	fb.none(t)
}

// TestConsumeRoutesMethods: the consuming routes answer only their method.
func TestConsumeRoutesMethods(t *testing.T) {
	for _, r := range []struct{ method, target string }{
		{"POST", "/api/v1/pop/queue/q"},
		{"GET", "/api/v1/ack"},
		{"PUT", "/api/v1/ack/batch"},
		{"GET", "/api/v1/lease/l/extend"},
		{"POST", "/api/v1/lease/l"},
	} {
		e := newEnv(t, nil, Options{})
		wantJSON(t, e.do(t, r.method, r.target, `{}`), http.StatusNotFound, `{"error":"Not Found","code":"no_such_route"}`)
		e.fb.none(t)
	}
}

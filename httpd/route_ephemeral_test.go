package httpd

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// ephemeralFuncs answer fakeBroker's Ephemeral methods; a nil one answers
// a plain default.
type ephemeralFuncs struct {
	push      func(EphemeralPush) (int, error)
	pop       func(EphemeralPop) ([]EphemeralMessage, error)
	ack       func(EphemeralAck) ([]string, error)
	configure func(EphemeralConfigure) (EphemeralOptions, error)
	depth     func(queue string) (EphemeralDepth, bool, error)
}

// EphemeralPush pushes every payload by default.
func (f *fakeBroker) EphemeralPush(ctx context.Context, tenant string, req EphemeralPush) (int, error) {
	f.record("EphemeralPush", tenant, req)
	if f.eph.push != nil {
		return f.eph.push(req)
	}
	return len(req.Payloads), nil
}

// EphemeralPop has nothing by default.
func (f *fakeBroker) EphemeralPop(ctx context.Context, tenant string, req EphemeralPop) ([]EphemeralMessage, error) {
	f.record("EphemeralPop", tenant, req)
	if f.eph.pop != nil {
		return f.eph.pop(req)
	}
	return nil, nil
}

// EphemeralAck acks every delivery by default.
func (f *fakeBroker) EphemeralAck(ctx context.Context, tenant string, req EphemeralAck) ([]string, error) {
	f.record("EphemeralAck", tenant, req)
	if f.eph.ack != nil {
		return f.eph.ack(req)
	}
	out := make([]string, len(req.Acks))
	for i := range out {
		out[i] = EphemeralAcked
	}
	return out, nil
}

// EphemeralConfigure answers the defaults by default.
func (f *fakeBroker) EphemeralConfigure(ctx context.Context, tenant string, req EphemeralConfigure) (EphemeralOptions, error) {
	f.record("EphemeralConfigure", tenant, req)
	if f.eph.configure != nil {
		return f.eph.configure(req)
	}
	return EphemeralOptions{Policy: EphemeralPolicyReject, LeaseSeconds: 30, RetryLimit: 3}, nil
}

// EphemeralReset drops 2 messages by default.
func (f *fakeBroker) EphemeralReset(ctx context.Context, tenant, queue string) (int, error) {
	f.record("EphemeralReset", tenant, queue)
	return 2, nil
}

// EphemeralDelete deletes the queue by default.
func (f *fakeBroker) EphemeralDelete(ctx context.Context, tenant, queue string) (bool, error) {
	f.record("EphemeralDelete", tenant, queue)
	return true, nil
}

// EphemeralQueues lists no queue by default.
func (f *fakeBroker) EphemeralQueues(ctx context.Context, tenant string) ([]EphemeralQueue, error) {
	f.record("EphemeralQueues", tenant, nil)
	return nil, nil
}

// EphemeralDepth finds no queue by default.
func (f *fakeBroker) EphemeralDepth(ctx context.Context, tenant, queue string) (EphemeralDepth, bool, error) {
	f.record("EphemeralDepth", tenant, queue)
	if f.eph.depth != nil {
		return f.eph.depth(queue)
	}
	return EphemeralDepth{}, false, nil
}

// TestEphemeralPush: the official client's push body reaches the broker
// with its payloads byte for byte and the partition defaulted; 201
// {queue, partition, pushed}.
func TestEphemeralPush(t *testing.T) {
	e := newEnv(t, nil, Options{})
	w := e.do(t, "POST", "/api/v1/ephemeral/push",
		`{"queue":"presence","partition":"room-7","messages":[{"payload":{"user": "a", "n": 1.50}},{"payload":null},{"payload":"x","extra":1}]}`)
	wantJSON(t, w, http.StatusCreated, `{"queue":"presence","partition":"room-7","pushed":3}`)
	got := e.fb.only(t).arg.(EphemeralPush)
	want := []string{`{"user": "a", "n": 1.50}`, `null`, `"x"`}
	if got.Queue != "presence" || got.Partition != "room-7" || len(got.Payloads) != 3 {
		t.Fatalf("broker got %+v", got)
	}
	for i, p := range got.Payloads {
		if string(p) != want[i] {
			t.Fatalf("payload %d = %s, want %s", i, p, want[i])
		}
	}

	e = newEnv(t, nil, Options{})
	wantStatus(t, e.do(t, "POST", "/api/v1/ephemeral/push", `{"queue":"q","partition":"","messages":[{"payload":1}]}`), 201)
	if p := e.fb.only(t).arg.(EphemeralPush).Partition; p != DefaultPartition {
		t.Fatalf("partition %q, want Default", p)
	}
}

// TestEphemeralPushRefusals: a body of the wrong shape is 400 naming the
// field, and the broker is not called.
func TestEphemeralPushRefusals(t *testing.T) {
	cases := []struct{ body, msg string }{
		{`{"messages":[{"payload":1}]}`, "queue is required"},
		{`{"queue":3,"messages":[{"payload":1}]}`, "queue must be a string"},
		{`{"queue":"q"}`, "messages is required"},
		{`{"queue":"q","messages":{}}`, "messages must be an array"},
		{`{"queue":"q","messages":[]}`, "messages is empty"},
		{`{"queue":"q","messages":[{"payload":1},2]}`, "messages[1] must be an object"},
		{`{"queue":"q","messages":[{"data":1}]}`, "messages[0].payload is required"},
		{`{"queue":"q","partition":7,"messages":[{"payload":1}]}`, "partition must be a string"},
		{`[]`, "the body must be an object"},
	}
	for _, c := range cases {
		wantRefusal(t, c.body, "POST", "/api/v1/ephemeral/push", c.body, CodeBadRequest, c.msg)
	}
}

// TestEphemeralPushFull: the broker's refusals keep their status and
// code; a 429 carries Retry-After, which the client waits for.
func TestEphemeralPushFull(t *testing.T) {
	for _, c := range []struct {
		err        *Error
		retryAfter string
	}{
		{&Error{Status: 429, Code: CodeOverloaded, Message: "ephemeral memory of this node is full"}, "1"},
		{&Error{Status: 413, Code: CodePayloadTooLarge, Message: "it can never fit"}, ""},
	} {
		fb := &fakeBroker{eph: ephemeralFuncs{push: func(EphemeralPush) (int, error) { return 0, c.err }}}
		e := newEnv(t, fb, Options{})
		w := e.do(t, "POST", "/api/v1/ephemeral/push", `{"queue":"q","messages":[{"payload":1}]}`)
		wantError(t, w, c.err.Status, c.err.Code, c.err.Message)
		if ra := w.Header().Get("Retry-After"); ra != c.retryAfter {
			t.Fatalf("%d: Retry-After %q, want %q", c.err.Status, ra, c.retryAfter)
		}
	}
}

// TestEphemeralPopQuery: the query as the official client spells it, and
// its defaults.
func TestEphemeralPopQuery(t *testing.T) {
	cases := []struct {
		query string
		want  EphemeralPop
	}{
		{"queue=q", EphemeralPop{Queue: "q", Group: QueueModeGroup, Batch: 1, Timeout: DefaultPopTimeout}},
		{"queue=q&partition=room-7&batch=50&wait=true&timeout=1500&group=workers&autoAck=true",
			EphemeralPop{Queue: "q", Partition: "room-7", Group: "workers", Batch: 50, Wait: true, Timeout: 1500 * time.Millisecond, AutoAck: true}},
		{"queue=q&consumerGroup=g&group=g&commitOnDelivery=true&timeout=999999",
			EphemeralPop{Queue: "q", Group: "g", Batch: 1, Timeout: MaxPopTimeout, AutoAck: true}},
		{"queue=a+b&partition=eu%2Fwest&group=",
			EphemeralPop{Queue: "a b", Partition: "eu/west", Group: QueueModeGroup, Batch: 1, Timeout: DefaultPopTimeout}},
	}
	for _, c := range cases {
		e := newEnv(t, nil, Options{})
		wantStatus(t, e.do(t, "GET", "/api/v1/ephemeral/pop?"+c.query, ""), 200)
		if got := e.fb.only(t).arg.(EphemeralPop); got != c.want {
			t.Errorf("%s: broker got %+v, want %+v", c.query, got, c.want)
		}
	}
	refused := []struct{ query, msg string }{
		{"", "queue is required"},
		{"queue=q&batch=0", `batch "0" is outside 1..10000`},
		{"queue=q&batch=x", "batch"},
		{"queue=q&wait=yes", `wait "yes" must be true or false`},
		{"queue=q&group=a&consumerGroup=b", `group "a" and consumerGroup "b" disagree`},
		{"queue=q&autoAck=true&commitOnDelivery=false", "disagree"},
		{"queue=q&group=a/b", "group"},
		{"queue=%zz", "malformed"},
	}
	for _, c := range refused {
		wantRefusal(t, "?"+c.query, "GET", "/api/v1/ephemeral/pop?"+c.query, "", CodeBadRequest, c.msg)
	}
}

// TestEphemeralPopAnswer: always 200, messages [] when there is nothing
// (the client unpacks it), payloads byte for byte; HEAD is 404.
func TestEphemeralPopAnswer(t *testing.T) {
	e := newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/ephemeral/pop?queue=q&wait=true&timeout=0", ""), 200,
		`{"queue":"q","group":"__QUEUE_MODE__","messages":[]}`)

	fb := &fakeBroker{eph: ephemeralFuncs{pop: func(EphemeralPop) ([]EphemeralMessage, error) {
		return []EphemeralMessage{{ID: "e1-0-1-1-9", Partition: "p", Payload: []byte(`{"a": 42.00}`), Attempts: 1},
			{ID: "e1-0-2-2-9", Partition: "p\u2028", Payload: nil, Attempts: 2}}, nil
	}}}
	e = newEnv(t, fb, Options{})
	w := e.do(t, "GET", "/api/v1/ephemeral/pop?queue=q&group=g&batch=2", "")
	want := `{"queue":"q","group":"g","messages":[{"id":"e1-0-1-1-9","partition":"p","payload":{"a": 42.00},"attempts":1},` +
		`{"id":"e1-0-2-2-9","partition":"p\u2028","payload":null,"attempts":2}]}` + "\n"
	wantBody(t, w, 200, want)

	// More messages than the batch is the broker's fault.
	e = newEnv(t, fb, Options{})
	wantError(t, e.do(t, "GET", "/api/v1/ephemeral/pop?queue=q", ""), 500, CodeInternal, "")

	e = newEnv(t, nil, Options{})
	wantError(t, e.do(t, "HEAD", "/api/v1/ephemeral/pop?queue=q", ""), 404, CodeNoSuchRoute, "")
	e.fb.none(t)
}

// TestEphemeralAck: the client's ack body, status defaulted, outcomes
// answered with the request's ids in order.
func TestEphemeralAck(t *testing.T) {
	fb := &fakeBroker{eph: ephemeralFuncs{ack: func(req EphemeralAck) ([]string, error) {
		return []string{EphemeralAcked, EphemeralRedelivered, EphemeralStale}, nil
	}}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "POST", "/api/v1/ephemeral/ack",
		`{"queue":"q","group":"workers","acks":[{"id":"a"},{"id":"b","status":"failed","error":"boom"},{"id":"c","status":"retry","error":null}]}`)
	wantJSON(t, w, 200, `{"queue":"q","group":"workers","results":[{"id":"a","outcome":"acked"},{"id":"b","outcome":"redelivered"},{"id":"c","outcome":"stale"}]}`)
	got := fb.only(t).arg.(EphemeralAck)
	want := EphemeralAck{Queue: "q", Group: "workers", Acks: []EphemeralAckItem{{ID: "a", Status: AckCompleted},
		{ID: "b", Status: AckFailed, Error: "boom"}, {ID: "c", Status: AckRetry}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("broker got %+v, want %+v", got, want)
	}

	e = newEnv(t, nil, Options{})
	wantStatus(t, e.do(t, "POST", "/api/v1/ephemeral/ack", `{"queue":"q","acks":[{"id":"a"}]}`), 200)
	if g := e.fb.only(t).arg.(EphemeralAck).Group; g != QueueModeGroup {
		t.Fatalf("group %q", g)
	}

	refused := []struct{ body, msg string }{
		{`{"acks":[{"id":"a"}]}`, "queue is required"},
		{`{"queue":"q"}`, "acks is required"},
		{`{"queue":"q","acks":[]}`, "acks is empty"},
		{`{"queue":"q","acks":[{"status":"completed"}]}`, "acks[0].id is required"},
		{`{"queue":"q","acks":[{"id":"a"},{"id":"b","status":"dlq"}]}`, `acks[1].status "dlq" must be completed, failed or retry`},
		{`{"queue":"q","acks":[{"id":"a","status":true}]}`, "acks[0].status must be a string"},
		{`{"queue":"q","acks":[{"id":"a","error":3}]}`, "acks[0].error must be a string"},
		{`{"queue":"q","acks":[{"id":"a b"}]}`, "acks[0].id"},
		{`{"queue":"q","group":1,"acks":[{"id":"a"}]}`, "group must be a string"},
		{`{"queue":"q","acks":[` + strings.Repeat(`{"id":"a"},`, MaxEphemeralAcks) + `{"id":"a"}]}`, "at most 10000"},
	}
	for _, c := range refused {
		wantRefusal(t, c.msg, "POST", "/api/v1/ephemeral/ack", c.body, CodeBadRequest, c.msg)
	}

	short := &fakeBroker{eph: ephemeralFuncs{ack: func(EphemeralAck) ([]string, error) { return nil, nil }}}
	e = newEnv(t, short, Options{})
	wantError(t, e.do(t, "POST", "/api/v1/ephemeral/ack", `{"queue":"q","acks":[{"id":"a"}]}`), 500, CodeInternal, "")
}

// TestEphemeralConfigure: the seven options, checked and passed on (null
// and absent as nil), the answer listing all of them; an unknown option is
// refused naming it.
func TestEphemeralConfigure(t *testing.T) {
	e := newEnv(t, nil, Options{})
	w := e.do(t, "POST", "/api/v1/ephemeral/configure", `{"queue":"q","options":{"maxBytes":1048576,"maxLength":1e3,`+
		`"policy":"drop_oldest","ttlSeconds":60,"leaseSeconds":5,"retryLimit":0,"windowBuffer":{"ms":50,"count":10}}}`)
	wantJSON(t, w, 200, `{"configured":true,"queue":"q","options":{"maxBytes":0,"maxLength":0,"policy":"reject",`+
		`"ttlSeconds":0,"leaseSeconds":30,"retryLimit":3,"windowBuffer":{"ms":0,"count":0}}}`)
	got := e.fb.only(t).arg.(EphemeralConfigure)
	if got.Queue != "q" || *got.MaxBytes != 1<<20 || *got.MaxLength != 1000 || *got.Policy != "drop_oldest" ||
		*got.TTLSeconds != 60 || *got.LeaseSeconds != 5 || *got.RetryLimit != 0 || *got.WindowBuffer != (EphemeralWindow{50, 10}) {
		t.Fatalf("broker got %+v", got)
	}

	for _, body := range []string{`{"queue":"q"}`, `{"queue":"q","options":null}`, `{"queue":"q","options":{"maxBytes":null,"windowBuffer":null}}`} {
		e := newEnv(t, nil, Options{})
		wantStatus(t, e.do(t, "POST", "/api/v1/ephemeral/configure", body), 200)
		if got := e.fb.only(t).arg.(EphemeralConfigure); !reflect.DeepEqual(got, EphemeralConfigure{Queue: "q"}) {
			t.Fatalf("%s: broker got %+v", body, got)
		}
	}

	refused := []struct{ body, msg string }{
		{`{"options":{}}`, "queue is required"},
		{`{"queue":"q","options":[]}`, "options must be an object"},
		{`{"queue":"q","options":{"ttl_second":1}}`, "options.ttl_second is not an ephemeral queue option: maxBytes, maxLength"},
		{`{"queue":"q","options":{"maxBytes":"1"}}`, "options.maxBytes"},
		{`{"queue":"q","options":{"maxLength":-1}}`, "options.maxLength -1 is outside 0.."},
		{`{"queue":"q","options":{"leaseSeconds":0}}`, "options.leaseSeconds 0 is outside 1..604800"},
		{`{"queue":"q","options":{"retryLimit":2.5}}`, "options.retryLimit 2.5 must be an integer"},
		{`{"queue":"q","options":{"policy":"Reject"}}`, `options.policy "Reject" must be reject or drop_oldest`},
		{`{"queue":"q","options":{"windowBuffer":50}}`, "options.windowBuffer must be an object"},
		{`{"queue":"q","options":{"windowBuffer":{"ms":60001}}}`, "options.windowBuffer.ms 60001 is outside 0..60000"},
	}
	for _, c := range refused {
		wantRefusal(t, c.msg, "POST", "/api/v1/ephemeral/configure", c.body, CodeBadRequest, c.msg)
	}
}

// TestEphemeralAdmin: reset, delete, the queue list and depth, with the
// queue in the path unescaped as the client quotes it, and depth's 404
// with the code the client tells from an old broker's 404.
func TestEphemeralAdmin(t *testing.T) {
	e := newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "POST", "/api/v1/ephemeral/reset", `{"queue":"q"}`), 200, `{"queue":"q","dropped":2}`)
	e.fb.wantCall(t, "EphemeralReset", "q")
	e = newEnv(t, nil, Options{})
	wantError(t, e.do(t, "POST", "/api/v1/ephemeral/reset", `{}`), 400, CodeBadRequest, "queue is required")

	e = newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "DELETE", "/api/v1/ephemeral/queue/a%20b%E2%82%AC", ""), 200, `{"queue":"a b€","deleted":true}`)
	if c := e.fb.only(t); c.arg != "a b€" {
		t.Fatalf("delete of %q", c.arg)
	}

	e = newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/ephemeral/queues", ""), 200, `{"queues":[]}`)

	e = newEnv(t, nil, Options{})
	wantError(t, e.do(t, "GET", "/api/v1/ephemeral/queues/ghost/depth", ""), 404, CodeEphemeralQueueNotFound, `"ghost" does not exist`)

	fb := &fakeBroker{eph: ephemeralFuncs{depth: func(q string) (EphemeralDepth, bool, error) {
		return EphemeralDepth{EphemeralQueue: EphemeralQueue{Queue: q, Messages: 3, Bytes: 390, Inflight: 1, PartitionCount: 2, GroupCount: 1},
			Options: EphemeralOptions{Policy: "reject", LeaseSeconds: 30, RetryLimit: 3},
			Partitions: []EphemeralPartitionDepth{{Partition: "Default", Messages: 3, Bytes: 390,
				Groups: []EphemeralGroupDepth{{"g", 2, 1}}}, {Partition: "p"}},
			Groups: []EphemeralGroupDepth{{"g", 2, 1}}}, true, nil
	}}}
	e = newEnv(t, fb, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/ephemeral/queues/q/depth", ""), 200, `{"queue":"q","declared":false,"messages":3,"bytes":390,`+
		`"inflight":1,"partitionCount":2,"groupCount":1,"options":{"maxBytes":0,"maxLength":0,"policy":"reject","ttlSeconds":0,`+
		`"leaseSeconds":30,"retryLimit":3,"windowBuffer":{"ms":0,"count":0}},"partitions":[{"partition":"Default","messages":3,`+
		`"bytes":390,"groups":[{"group":"g","pending":2,"inflight":1}]},{"partition":"p","messages":0,"bytes":0,"groups":[]}],`+
		`"groups":[{"group":"g","pending":2,"inflight":1}]}`)
}

// TestEphemeralRoutesNeedEphemeral: over a Broker that is not an
// Ephemeral the family is 404 no_such_route, which the client reads as
// "this broker has no ephemeral queues".
func TestEphemeralRoutesNeedEphemeral(t *testing.T) {
	fb := &fakeBroker{}
	if _, ok := Broker(brokerOnly{fb}).(Ephemeral); ok {
		t.Fatal("brokerOnly is an Ephemeral")
	}
	e := &env{fb: fb, h: New(brokerOnly{fb}, Options{})}
	for _, r := range []struct{ method, target, body string }{
		{"POST", "/api/v1/ephemeral/push", `{"queue":"q","messages":[{"payload":1}]}`},
		{"GET", "/api/v1/ephemeral/pop?queue=q", ""},
		{"POST", "/api/v1/ephemeral/ack", `{"queue":"q","acks":[{"id":"a"}]}`},
		{"POST", "/api/v1/ephemeral/configure", `{"queue":"q"}`},
		{"POST", "/api/v1/ephemeral/reset", `{"queue":"q"}`},
		{"DELETE", "/api/v1/ephemeral/queue/q", ""},
		{"GET", "/api/v1/ephemeral/queues", ""},
		{"GET", "/api/v1/ephemeral/queues/q/depth", ""},
	} {
		wantError(t, e.do(t, r.method, r.target, r.body), 404, CodeNoSuchRoute, "")
	}
	fb.none(t)
}

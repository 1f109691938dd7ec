package inproc

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func results(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var got struct{ Results []map[string]any }
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return got.Results
}

func lockCall(t *testing.T, ops ...string) []map[string]any {
	t.Helper()
	w := do(t, "POST", "/api/v1/locks", `{"operations":[`+strings.Join(ops, ",")+`]}`)
	want(t, w, 200, "")
	return results(t, w.Body.Bytes())
}

// TestLocksRoute: acquire, held, renew with a new token, a guard that
// commits a transaction only while its token is the lock's (the rollback
// names the guard in the flat result space and shows the owner), get and
// release, over POST /api/v1/locks.
func TestLocksRoute(t *testing.T) {
	a := lockCall(t, `{"op":"acquire","name":"route-l","ttlSeconds":30,"owner":"w1"}`)[0]
	if a["acquired"] != true || a["slot"] != 0.0 {
		t.Fatalf("acquire: %v", a)
	}
	token := a["token"].(float64)
	guard, _ := json.Marshal(a["guard"])
	if b := lockCall(t, `{"op":"acquire","name":"route-l","ttlSeconds":30,"owner":"w2"}`)[0]; b["acquired"] != false || b["reason"] != "held" {
		t.Fatalf("second acquire: %v", b)
	}
	txn := func(guard []byte) map[string]any {
		w := do(t, "POST", "/api/v1/transaction", `{"operations":[{"type":"push","items":[{"queue":"route-locked","payload":1},{"queue":"route-locked","payload":2}]}],"kv":[`+string(guard)+`]}`)
		want(t, w, 200, "")
		var m map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &m)
		return m
	}
	if m := txn(guard); m["success"] != true {
		t.Fatalf("guarded txn while held: %v", m)
	}
	r := lockCall(t, fmt.Sprintf(`{"op":"renew","name":"route-l","token":%d,"ttlSeconds":30}`, int64(token)))[0]
	if r["renewed"] != true || r["token"].(float64) <= token {
		t.Fatalf("renew: %v", r)
	}
	m := txn(guard)
	if m["success"] != false || m["reason"] != "kv_precondition" || m["failedIndex"] != 2.0 || m["kvReason"] != "version" {
		t.Fatalf("guarded txn with the old token: %v", m)
	}
	if v, _ := m["value"].(map[string]any); v["owner"] != "w1" {
		t.Fatalf("the rollback's value %v does not name the owner", m["value"])
	}
	g := lockCall(t, `{"op":"get","name":"route-l"}`)[0]
	if hs, _ := g["holders"].([]any); g["held"] != true || len(hs) != 1 || hs[0].(map[string]any)["token"] != r["token"] {
		t.Fatalf("get: %v", g)
	}
	rel := lockCall(t, fmt.Sprintf(`{"op":"release","name":"route-l","token":%d}`, int64(r["token"].(float64))))[0]
	if rel["released"] != true {
		t.Fatalf("release: %v", rel)
	}
	for _, c := range []struct{ body, msg string }{
		{`{"operations":[{"op":"acquire","name":"a#b","ttlSeconds":1}]}`, "operations[0].name"},
		{`{"operations":[{"op":"acquire","name":"a"}]}`, "operations[0].ttlSeconds is required"},
		{`{"operations":[{"op":"acquire","name":"a","ttlSeconds":1,"limit":1025}]}`, "operations[0].limit"},
		{`{"operations":[{"op":"renew","name":"a","ttlSeconds":1}]}`, "operations[0].token is required"},
		{`{"operations":[{"op":"steal","name":"a"}]}`, `operations[0].op "steal"`},
		{`{"operations":[{"op":"get","name":"a"},{"op":"get","name":"a"}]}`, `operations[1].name: lock "a" is in operations[0]`},
		{`{"ops":[]}`, "operations is required"},
	} {
		w := do(t, "POST", "/api/v1/locks", c.body)
		want(t, w, 400, "bad_request")
		wantMsg(t, w, c.msg)
	}
}

// TestTimersRoute: a timer fires once as a record with its txn, not
// before deliverAt; peek, list and count see it pending; a cancel answers
// cancelled once, then absent; the horizon is 403; a transaction's timer
// commits with its push and not without it.
func TestTimersRoute(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	w := do(t, "POST", "/api/v1/timers", `{"operations":[
		{"op":"schedule","queue":"route-t","timerKey":"soon","delayMs":200,"txn":"t-soon","payload":"`+b64(`{"n":1}`)+`"},
		{"op":"schedule","queue":"route-t","timerKey":"later/x","delayMs":3600000,"txn":"t-later","payload":"`+b64(`2`)+`"}]}`)
	want(t, w, 200, "")
	res := results(t, w.Body.Bytes())
	if len(res) != 2 || res[0]["status"] != "scheduled" || res[0]["ok"] != true || res[0]["txn"] != "t-soon" || res[0]["messageId"] == nil {
		t.Fatalf("schedule: %v", res)
	}
	deliverAt, err := time.Parse(time.RFC3339Nano, res[0]["deliverAt"].(string))
	if err != nil {
		t.Fatal(err)
	}
	w = do(t, "GET", "/api/v1/timers/route-t/later/x", "")
	want(t, w, 200, "")
	wantBody(t, w, `"found":true`, `"txn":"t-later"`, `"payload":"`+b64(`2`)+`"`)
	w = do(t, "GET", "/api/v1/timers/route-t?limit=1", "")
	wantBody(t, w, `"truncated":true`, `"nextAfter":"later/x"`)
	w = do(t, "GET", "/api/v1/timers/route-t?mode=count&prefix=lat", "")
	wantBody(t, w, `{"count":1}`)

	// The fired message, waited for by a long-polling pop.
	w = do(t, "GET", "/api/v1/pop/queue/route-t?wait=true&timeout=10000&autoAck=true", "")
	want(t, w, 200, "")
	var p struct {
		Messages []struct {
			TransactionID string
			Data          json.RawMessage
			CreatedAt     string
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || len(p.Messages) != 1 {
		t.Fatalf("pop: %v %s", err, w.Body)
	}
	m := p.Messages[0]
	created, _ := time.Parse(time.RFC3339Nano, m.CreatedAt)
	if m.TransactionID != "t-soon" || string(m.Data) != `{"n":1}` || created.Before(deliverAt) {
		t.Fatalf("fired %+v, deliverAt %v", m, deliverAt)
	}
	wantBody(t, do(t, "GET", "/api/v1/timers/route-t/soon", ""), `"found":false`)

	w = do(t, "DELETE", "/api/v1/timers/route-t/later/x", "")
	want(t, w, 200, "")
	wantBody(t, w, `"ok":true,"status":"cancelled"`, `"txn":"t-later"`)
	wantBody(t, do(t, "DELETE", "/api/v1/timers/route-t/later/x?txn=t-later", ""), `"ok":false,"status":"absent"`, `"txn":"t-later"`)

	w = do(t, "POST", "/api/v1/timers", `{"operations":[{"op":"schedule","queue":"route-t","timerKey":"far","delayMs":7776000001,"payload":"e30="}]}`)
	want(t, w, 403, "timer_beyond_horizon")

	// Keys with '/', spaces and '%' travel in the path as the client
	// escapes them.
	want(t, do(t, "POST", "/api/v1/timers", `{"operations":[{"op":"schedule","queue":"route-t","timerKey":"a b/c%d","delayMs":3600000,"payload":"e30="}]}`), 200, "")
	wantBody(t, do(t, "GET", "/api/v1/timers/route-t/a%20b/c%25d", ""), `"found":true`, `"timerKey":"a b/c%d"`)
	wantBody(t, do(t, "DELETE", "/api/v1/timers/route-t/a%20b/c%25d", ""), `"status":"cancelled"`)
	w = do(t, "GET", "/api/v1/timers/route-t/", "")
	want(t, w, 400, "bad_request")
	wantMsg(t, w, "the timerKey is empty")

	// A transaction: the timer commits with the push, in one index space.
	w = do(t, "POST", "/api/v1/transaction", `{"operations":[{"type":"push","queue":"route-tx","payload":1,"transactionId":"tx-1"}],
		"timers":[{"op":"schedule","queue":"route-tx","timerKey":"k","delayMs":3600000,"txn":"tx-t","payload":"e30="}]}`)
	want(t, w, 200, "")
	wantBody(t, w, `"success":true`, `{"index":1,"type":"timer","opIndex":0,"ok":true,"status":"scheduled","queue":"route-tx","timerKey":"k","txn":"tx-t"`)
	// The same push again is a duplicate: the whole bundle rolls back, and
	// its timer is not rescheduled.
	w = do(t, "POST", "/api/v1/transaction", `{"operations":[{"type":"push","queue":"route-tx","payload":1,"transactionId":"tx-1"}],
		"timers":[{"op":"schedule","queue":"route-tx","timerKey":"k","delayMs":1,"txn":"tx-t2","payload":"e30="}]}`)
	wantBody(t, w, `"success":false`, `"reason":"duplicate"`)
	wantBody(t, do(t, "GET", "/api/v1/timers/route-tx/k", ""), `"txn":"tx-t"`)
}

// TestTxnPositions: positions[] sets a group's place on a partition with
// the rest of the bundle: the next pop of the group starts after it; a
// position on a partition that does not exist rolls everything back.
func TestTxnPositions(t *testing.T) {
	w := do(t, "POST", "/api/v1/push", `{"items":[{"queue":"route-pos","payload":0},{"queue":"route-pos","payload":1},{"queue":"route-pos","payload":2}]}`)
	want(t, w, 201, "")
	w = do(t, "POST", "/api/v1/transaction", `{"positions":[{"queue":"route-pos","consumerGroup":"g","offset":1,"metadata":"m"}]}`)
	want(t, w, 200, "")
	wantBody(t, w, `"success":true`, `{"index":0,"type":"position","opIndex":0,"success":true}`)
	offsets := func() []int64 {
		t.Helper()
		w := do(t, "GET", "/api/v1/pop/queue/route-pos?consumerGroup=g&batch=10&wait=false&autoAck=true", "")
		if w.Code == 204 {
			return nil
		}
		want(t, w, 200, "")
		var p struct{ Messages []struct{ Offset int64 } }
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, m := range p.Messages {
			out = append(out, m.Offset)
		}
		return out
	}
	if got := offsets(); len(got) != 1 || got[0] != 2 {
		t.Fatalf("the pop after position 1 delivered offsets %v, want [2]", got)
	}
	// A null position forgets it: the group (subscribed, mode all) reads
	// the partition from its first record again.
	w = do(t, "POST", "/api/v1/transaction", `{"positions":[{"queue":"route-pos","consumerGroup":"g2","offset":0,"subscriptionMode":"all"}]}`)
	wantBody(t, w, `"success":true`)
	w = do(t, "POST", "/api/v1/transaction", `{"positions":[{"queue":"route-pos","consumerGroup":"g2","offset":null}]}`)
	wantBody(t, w, `"success":true`)
	w = do(t, "GET", "/api/v1/pop/queue/route-pos?consumerGroup=g2&batch=10&wait=false&autoAck=true", "")
	wantBody(t, w, `"offset":0`, `"offset":1`, `"offset":2`)
	w = do(t, "POST", "/api/v1/transaction", `{"operations":[{"type":"push","queue":"route-pos","payload":9}],
		"positions":[{"queue":"route-pos","consumerGroup":"g","partition":"nope","offset":0}]}`)
	wantBody(t, w, `"success":false`, `"reason":"queue_not_found"`, `positions[0]`)
	w = do(t, "POST", "/api/v1/transaction", `{"positions":[{"queue":"route-pos","consumerGroup":"g","offset":7}]}`)
	wantBody(t, w, `"success":false`, `"reason":"bad_request"`, "past the last offset 2")
}

// wantBody fails unless w's body holds each of parts.
func wantBody(t *testing.T, w *httptest.ResponseRecorder, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(w.Body.String(), p) {
			t.Fatalf("body %.600s does not hold %q", w.Body, p)
		}
	}
}

package httpd

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestPushAnswers(t *testing.T) {
	orig := uuid.MustParse("01890a5d-ac96-774b-bcce-b302099a8057")
	fb := &fakeBroker{push: func(_ context.Context, _ string, items []PushItem) ([]PushResult, error) {
		return []PushResult{
			{Offset: 7, MessageID: items[0].MessageID},
			{Duplicate: true, Offset: 3, MessageID: orig},
			{Error: "queue is being deleted"},
		}, nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "POST", "/api/v1/push", `{"items":[
		{"queue":"q","payload":{"a":1}},
		{"queue":"q","partition":"p1","payload":1,"transactionId":"t-1"},
		{"queue":"r","partition":"","payload":"x","transactionId":""}]}`)
	wantStatus(t, w, http.StatusCreated)

	items := fb.only(t).arg.([]PushItem)
	for i, it := range items {
		id := uuid.UUID(it.MessageID)
		if id.Version() != 7 {
			t.Errorf("item %d: message id %s is not a UUIDv7", i, id)
		}
	}
	wantItems := []struct {
		queue, partition, txn string
		dedup                 bool
	}{
		{"q", "Default", uuid.UUID(items[0].MessageID).String(), false},
		{"q", "p1", "t-1", true},
		{"r", "Default", uuid.UUID(items[2].MessageID).String(), false},
	}
	for i, want := range wantItems {
		it := items[i]
		if it.Queue != want.queue || it.Partition != want.partition || it.TransactionID != want.txn || it.Dedup != want.dedup {
			t.Errorf("item %d = %+v, want %+v", i, it, want)
		}
	}

	var got []map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"index": 0.0, "message_id": uuid.UUID(items[0].MessageID).String(), "transaction_id": wantItems[0].txn,
			"queueName": "q", "status": "queued", "offset": 7.0},
		{"index": 1.0, "message_id": orig.String(), "transaction_id": "t-1", "queueName": "q",
			"status": "duplicate", "offset": 3.0},
		{"index": 2.0, "message_id": uuid.UUID(items[2].MessageID).String(), "transaction_id": wantItems[2].txn,
			"queueName": "r", "status": "error", "error": "queue is being deleted", "offset": nil},
	}
	if len(got) != len(want) {
		t.Fatalf("answer = %s", w.Body)
	}
	for i := range want {
		for k, v := range want[i] {
			if got[i][k] != v {
				t.Errorf("answer[%d].%s = %v, want %v", i, k, got[i][k], v)
			}
		}
		if len(got[i]) != len(want[i]) {
			t.Errorf("answer[%d] = %v, want keys of %v", i, got[i], want[i])
		}
	}
}

// TestPushPayloadBytes: payloads reach the broker byte for byte.
func TestPushPayloadBytes(t *testing.T) {
	payloads := []string{
		`42.00`,
		`{ "a" :  [1, 2.50 ,"<b>&"] }`,
		`"caf\u00e9 \ud83d\ude00"`,
		`null`,
		`[]`,
		`1e400`,
		"{\n\t\"pretty\": true\n}",
	}
	for _, p := range payloads {
		t.Run(p, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			w := e.do(t, "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":`+p+`}]}`)
			wantStatus(t, w, http.StatusCreated)
			items := e.fb.only(t).arg.([]PushItem)
			if string(items[0].Payload) != p {
				t.Fatalf("payload = %q, want %q", items[0].Payload, p)
			}
		})
	}
}

// TestPushTraceID: an item's traceId reaches the broker as its UUID; null
// or absent is none.
func TestPushTraceID(t *testing.T) {
	e := newEnv(t, nil, Options{})
	w := e.do(t, "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1,"traceId":"f5881e23-fde4-44d2-97fe-e45776f93a42"},`+
		`{"queue":"q","payload":2,"traceId":null},{"queue":"q","payload":3}]}`)
	wantStatus(t, w, http.StatusCreated)
	items := e.fb.only(t).arg.([]PushItem)
	want := [16]byte(uuid.MustParse("f5881e23-fde4-44d2-97fe-e45776f93a42"))
	if items[0].TraceID != want || items[1].TraceID != ([16]byte{}) || items[2].TraceID != ([16]byte{}) {
		t.Fatalf("trace ids %x %x %x", items[0].TraceID, items[1].TraceID, items[2].TraceID)
	}
}

func TestPushRefusals(t *testing.T) {
	long := strings.Repeat("x", MaxTransactionIDBytes+1)
	cases := []struct {
		name, body string
		code, msg  string
	}{
		{"malformed", `{"items":[`, CodeBadBody, "not JSON"},
		{"empty body", ``, CodeBadBody, "empty"},
		{"not an object", `[1]`, CodeBadRequest, "the body must be an object"},
		{"no items", `{}`, CodeBadRequest, "items is required"},
		{"items not an array", `{"items":{}}`, CodeBadRequest, "items must be an array"},
		{"no item", `{"items":[]}`, CodeBadRequest, "items is empty"},
		{"item not an object", `{"items":[{"queue":"q","payload":1},7]}`, CodeBadRequest, "items[1] must be an object"},
		{"no queue", `{"items":[{"payload":1}]}`, CodeBadRequest, "items[0].queue is required"},
		{"empty queue", `{"items":[{"queue":"","payload":1}]}`, CodeBadRequest, "items[0].queue is required"},
		{"queue a number", `{"items":[{"queue":5,"payload":1}]}`, CodeBadRequest, "items[0].queue must be a string"},
		{"queue in other case", `{"items":[{"Queue":"q","payload":1}]}`, CodeBadRequest, "items[0].queue is required"},
		{"partition a number", `{"items":[{"queue":"q","partition":1,"payload":1}]}`, CodeBadRequest, "items[0].partition must be a string"},
		{"no payload", `{"items":[{"queue":"q"}]}`, CodeBadRequest, "items[0].payload is required"},
		{"txn a number", `{"items":[{"queue":"q","payload":1,"transactionId":5}]}`, CodeBadRequest, "items[0].transactionId must be a string"},
		{"txn too long", `{"items":[{"queue":"q","payload":1,"transactionId":"` + long + `"}]}`, CodeBadRequest, "over 65535"},
		{"txn control char", `{"items":[{"queue":"q","payload":1,"transactionId":"a\nb"}]}`, CodeBadRequest, "control character"},
		{"txn C1 control", `{"items":[{"queue":"q","payload":1,"transactionId":"a\u0085"}]}`, CodeBadRequest, "control character"},
		{"traceId not a UUID", `{"items":[{"queue":"q","payload":1,"traceId":"abc"}]}`, CodeBadRequest, `items[0].traceId "abc" must be a UUID`},
		{"traceId a number", `{"items":[{"queue":"q","payload":1,"traceId":5}]}`, CodeBadRequest, "items[0].traceId must be a string"},
	}
	for _, c := range cases {
		wantRefusal(t, c.name, "POST", "/api/v1/push", c.body, c.code, c.msg)
	}
}

func TestPushLongestTransactionID(t *testing.T) {
	e := newEnv(t, nil, Options{})
	txn := strings.Repeat("é", MaxTransactionIDBytes/2) + "x" // 65,535 bytes
	w := e.do(t, "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1,"transactionId":"`+txn+`"}]}`)
	wantStatus(t, w, http.StatusCreated)
	if got := e.fb.only(t).arg.([]PushItem)[0].TransactionID; got != txn {
		t.Fatalf("transactionId of %d bytes, want %d", len(got), len(txn))
	}
}

func TestPushBrokerAnswersTooFew(t *testing.T) {
	fb := &fakeBroker{push: func(context.Context, string, []PushItem) ([]PushResult, error) { return nil, nil }}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1}]}`)
	wantError(t, w, http.StatusInternalServerError, CodeInternal, "internal")
	if e.logLines() != 1 || !strings.Contains(e.log.String(), "0 push results for 1 items") {
		t.Fatalf("log = %q", e.log)
	}
}

package httpd

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/httpd/wire"
)

func clientBody(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("wire", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The official client's plain binary push (wire/testdata) reaches the
// broker as the JSON push of the same items would: defaults filled,
// payloads as the client wrote them, ids minted for items without a
// transaction id.
func TestBinaryPushPlain(t *testing.T) {
	fb := &fakeBroker{}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "POST", "/api/v1/push", clientBody(t, "push_plain.bin"), "Content-Type", wire.PushContentType)
	wantStatus(t, w, http.StatusCreated)
	items := fb.only(t).arg.([]PushItem)
	want := []struct {
		queue, partition, txn, payload string
		dedup                          bool
	}{
		{"orders", "eu", "t-1", `{"id":1,"name":"é ☃"}`, true},
		{"orders", "eu", "", `[1,2.5,null,true]`, false},
		{"orders", "Default", "", `"text"`, false},
		{"audit", "p", "t-4", `null`, true},
	}
	if len(items) != len(want) {
		t.Fatalf("%d items, want %d", len(items), len(want))
	}
	for i, w := range want {
		it := items[i]
		if !w.dedup {
			w.txn = uuid.UUID(it.MessageID).String()
		}
		if it.Queue != w.queue || it.Partition != w.partition || it.TransactionID != w.txn || string(it.Payload) != w.payload || it.Dedup != w.dedup {
			t.Errorf("item %d = %+v %s, want %+v", i, it, it.Payload, w)
		}
		if uuid.UUID(it.MessageID).Version() != 7 {
			t.Errorf("item %d has no minted UUIDv7", i)
		}
	}
	var got []pushAnswerRef
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || len(got) != 4 || got[3].TransactionID != "t-4" || got[0].Status != "queued" {
		t.Fatalf("answer %s (%v)", w.Body, err)
	}
}

// A framed push keeps the client's message ids and deduplicates every
// message, by its own transaction id or its id's text.
func TestBinaryPushFramedKeepsClientIDs(t *testing.T) {
	fb := &fakeBroker{}
	e := newEnv(t, fb, Options{})
	// No Content-Type: the magic says what the body is.
	w := e.do(t, "POST", "/api/v1/push", clientBody(t, "push_frames.bin"))
	wantStatus(t, w, http.StatusCreated)
	items := fb.only(t).arg.([]PushItem)
	var got []pushAnswerRef
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for i, it := range items {
		id := uuid.UUID(it.MessageID)
		if !it.Dedup || (it.TransactionID != "t-1" && it.TransactionID != "t-4" && it.TransactionID != id.String()) {
			t.Errorf("item %d: txn %q dedup %v id %s", i, it.TransactionID, it.Dedup, id)
		}
		if got[i].MessageID != id.String() {
			t.Errorf("answer %d names message %s, the client minted %s", i, got[i].MessageID, id)
		}
	}
}

// A framed message without a transaction id of its own is deduplicated by
// its id's text, so a retry of the same bytes is a duplicate.
func TestBinaryPushFramedWithoutTransactionID(t *testing.T) {
	fb := &fakeBroker{}
	e := newEnv(t, fb, Options{})
	id := uuid.Must(uuid.NewV7())
	body, err := wire.AppendPush(nil, []wire.Group{{Queue: "q", Partition: "p", Messages: []wire.Message{{ID: id, Payload: []byte("1")}}}},
		wire.PushOptions{Frames: true})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, e.do(t, "POST", "/api/v1/push", string(body)), http.StatusCreated)
	it := fb.only(t).arg.([]PushItem)[0]
	if !it.Dedup || it.TransactionID != id.String() || it.MessageID != id {
		t.Errorf("item = %+v, want deduplicated by %s", it, id)
	}
}

func TestBinaryPushCounts(t *testing.T) {
	fb := &fakeBroker{push: func(_ context.Context, _ string, items []PushItem) ([]PushResult, error) {
		return []PushResult{{Offset: 1}, {Duplicate: true}, {Error: "queue is being deleted"}}, nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "POST", "/api/v1/push", clientBody(t, "push_frames_counts.bin"), "Content-Type", wire.PushContentType)
	wantJSON(t, w, http.StatusCreated, `{"count":3,"queued":1,"duplicate":1,"error":1}`)

	fb.calls = nil
	fb.push = nil
	w = e.do(t, "POST", "/api/v1/push", clientBody(t, "push_zstd_counts.bin"), "Content-Type", wire.PushContentType)
	wantJSON(t, w, http.StatusCreated, `{"count":2,"queued":2,"duplicate":0,"error":0}`)
}

func TestBinaryPushRefusals(t *testing.T) {
	fb := &fakeBroker{}
	e := newEnv(t, fb, Options{MaxBodyBytes: 4096})
	body := func(groups []wire.Group, o wire.PushOptions) string {
		b, err := wire.AppendPush(nil, groups, o)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	one := func(queue, partition, txn, payload string) []wire.Group {
		return []wire.Group{{Queue: queue, Partition: partition, Messages: []wire.Message{{TransactionID: txn, Payload: []byte(payload)}}}}
	}
	big := one("q", "p", "", `"`+strings.Repeat("x", 8000)+`"`)
	for _, c := range []struct {
		name, body, code, msg string
		status                int
	}{
		{"json content type mismatch", `{"items":[]}`, CodeBadBody, "binary push: the body does not start with QPB1", 400},
		{"no queue", body(one("", "p", "", "1"), wire.PushOptions{}), CodeBadRequest, "groups[0].queue is required", 400},
		{"bad queue name", body(one("a/b", "p", "", "1"), wire.PushOptions{}), CodeBadRequest, "groups[0].queue", 400},
		{"payload not json", body(one("q", "p", "", "{nope"), wire.PushOptions{}), CodeBadBody, "groups[0].messages[0].payload is not JSON", 400},
		{"empty payload", body(one("q", "p", "", ""), wire.PushOptions{}), CodeBadBody, "groups[0].messages[0].payload is empty", 400},
		{"invalid utf-8", body(one("q", "p", "", "\"\xff\""), wire.PushOptions{}), CodeBadRequest, "groups[0].messages[0].payload", 400},
		{"no messages", "QPB1\x00\x00\x00\x00\x00", CodeBadRequest, "the binary body has no messages", 400},
		{"decompresses past the limit", body(big, wire.PushOptions{Compress: true}), CodePayloadTooLarge, "over 4096", 413},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := e.do(t, "POST", "/api/v1/push", c.body, "Content-Type", wire.PushContentType)
			got := wantError(t, w, c.status, c.code, "")
			if !strings.Contains(got.Error, c.msg) {
				t.Errorf("error %q does not say %q", got.Error, c.msg)
			}
		})
	}
	fb.none(t)
}

// The binary transaction: the head's operations first, each message an
// operation after them; flag 2 counts pushes and acks.
func TestBinaryTransaction(t *testing.T) {
	fb := &fakeBroker{}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "POST", "/api/v1/transaction", clientBody(t, "txn.bin"), "Content-Type", wire.PushContentType)
	wantStatus(t, w, http.StatusOK)
	req := fb.only(t).arg.(TxnRequest)
	if len(req.Acks) != 1 || req.Acks[0].OpIndex != 0 || req.Acks[0].Item.LeaseID != "lease-1" {
		t.Errorf("acks = %+v", req.Acks)
	}
	if len(req.Pushes) != 3 {
		t.Fatalf("pushes = %+v", req.Pushes)
	}
	for k, p := range req.Pushes {
		if p.OpIndex != 1+k || !p.Item.Dedup || uuid.UUID(p.Item.MessageID).Version() != 7 {
			t.Errorf("push %d = %+v", k, p)
		}
	}
	var ans struct {
		Success bool
		Results []struct {
			Index     int
			Type      string
			MessageID string
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &ans); err != nil || !ans.Success || len(ans.Results) != 4 {
		t.Fatalf("answer %s (%v)", w.Body, err)
	}
	for k, r := range ans.Results {
		if r.Index != k {
			t.Errorf("result %d has index %d", k, r.Index)
		}
	}
	if ans.Results[0].Type != "ack" || ans.Results[1].MessageID != uuid.UUID(req.Pushes[0].Item.MessageID).String() {
		t.Errorf("results = %+v", ans.Results)
	}

	// A head of acks alone, no groups: a transaction too.
	fb.calls = nil
	head := `{"operations":[{"type":"ack","transactionId":"m-1","partitionId":"7","status":"completed"}]}`
	only, err := wire.AppendTransaction(nil, []byte(head), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, e.do(t, "POST", "/api/v1/transaction", string(only)), http.StatusOK)
	if req := fb.only(t).arg.(TxnRequest); len(req.Acks) != 1 || len(req.Pushes) != 0 {
		t.Errorf("head-only transaction = %+v", req)
	}

	fb.calls = nil
	w = e.do(t, "POST", "/api/v1/transaction", clientBody(t, "txn_counts.bin"), "Content-Type", wire.PushContentType)
	wantJSON(t, w, http.StatusOK, `{"transactionId":"`+fakeTxnID+`","success":true,"results":[],"pushed":1,"duplicate":0,"acked":0}`)
}

// A framed pop decodes to the JSON pop's messages.
func TestFramedPop(t *testing.T) {
	id1, id2, trace := uuid.New(), uuid.New(), uuid.New()
	msgs := []PopMessage{
		{ID: id1.String(), TransactionID: "a", TraceID: trace.String(), Data: json.RawMessage(`{"x":1}`), CreatedAt: 10, PartitionID: "5", Queue: "q", Partition: "p", LeaseID: "l", ConsumerGroup: "g", DeliveryAttempt: 1, Offset: 3},
		{ID: id2.String(), TransactionID: "b", Data: json.RawMessage(`2`), CreatedAt: 10, PartitionID: "5", Queue: "q", Partition: "p", LeaseID: "l", ConsumerGroup: "g", DeliveryAttempt: 1, Offset: 4},
		{ID: id1.String(), TransactionID: "c", Data: json.RawMessage(`3`), CreatedAt: 11, PartitionID: "9", Queue: "q", Partition: "r", LeaseID: "l", ConsumerGroup: "g", DeliveryAttempt: 2, Offset: 0},
	}
	fb := &fakeBroker{pop: func(context.Context, string, PopRequest) (PopAnswer, bool, error) {
		return PopAnswer{Queue: "q", Partition: "p", PartitionID: "5", LeaseID: "l", ConsumerGroup: "g", PartitionsClaimed: 2, Conflation: true, Messages: msgs}, true, nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "GET", "/api/v1/pop/queue/q?consumerGroup=g&batch=10&frames=true", "")
	wantStatus(t, w, http.StatusOK)
	if ct := w.Header().Get("Content-Type"); ct != wire.PopContentType {
		t.Errorf("Content-Type %q", ct)
	}
	p, err := wire.NewDecoder(1 << 20).DecodePop(w.Body.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if string(p.Own) != `{"partitionsClaimed":2,"conflation":true}` || p.Queue != "q" || p.LeaseID != "l" || p.ConsumerGroup != "g" {
		t.Errorf("head = %+v", p)
	}
	if len(p.Claims) != 2 || len(p.Claims[0].Records) != 1 || len(p.Claims[0].Records[0].Frames) != 2 || p.Claims[0].Start != 3 || p.Claims[0].End != 4 {
		t.Fatalf("claims = %+v", p.Claims)
	}
	c := p.Claims[1]
	if c.PartitionID != 9 || c.Partition != "r" || c.DeliveryAttempt != 2 || c.Records[0].CreatedAt != 11 || string(c.Records[0].Frames[0].Payload) != "3" {
		t.Errorf("second claim = %+v", c)
	}
	f := p.Claims[0].Records[0].Frames[0]
	if uuid.UUID(f.ID) != id1 || !f.HasTrace || uuid.UUID(f.TraceID) != trace || f.TransactionID != "a" || string(f.Payload) != `{"x":1}` {
		t.Errorf("first frame = %+v", f)
	}

	// Without frames=true, JSON.
	w = e.do(t, "GET", "/api/v1/pop/queue/q?consumerGroup=g&batch=10", "")
	var js struct{ Messages []struct{ ID string } }
	if err := json.Unmarshal(w.Body.Bytes(), &js); err != nil || len(js.Messages) != 3 || w.Header().Get("Content-Type") != "application/json" {
		t.Errorf("pop without frames=true: %v %.80s", err, w.Body.String())
	}

	// With a message the layout cannot carry, JSON.
	msgs[1].ID = "not-a-uuid"
	w = e.do(t, "GET", "/api/v1/pop/queue/q?consumerGroup=g&frames=true", "")
	if !strings.HasPrefix(w.Body.String(), `{"success":true`) {
		t.Errorf("unframeable answer: %q", w.Body.String()[:20])
	}
	w = e.do(t, "GET", "/api/v1/pop/queue/q?frames=maybe", "")
	wantError(t, w, http.StatusBadRequest, CodeBadRequest, `frames "maybe" must be true or false`)
}

package httpd

import (
	"bytes"
	"math"
	"testing"

	"github.com/google/uuid"
)

// pushAnswerRef is the element of a push answer as it was rendered before
// push_answer.go: by encoding/json.
type pushAnswerRef struct {
	Index         int    `json:"index"`
	MessageID     string `json:"message_id"`
	TransactionID string `json:"transaction_id"`
	QueueName     string `json:"queueName"`
	Status        string `json:"status"`
	Error         string `json:"error,omitempty"`
	Offset        *int64 `json:"offset"`
}

// renderPushRef renders a push answer as the push route did before
// appendPushAnswers, word for word but for the metrics.
func renderPushRef(items []PushItem, results []PushResult) []byte {
	out := make([]pushAnswerRef, len(items))
	for i, res := range results {
		id := res.MessageID
		if id == ([16]byte{}) {
			id = items[i].MessageID
		}
		a := pushAnswerRef{
			Index:         i,
			MessageID:     uuid.UUID(id).String(),
			TransactionID: items[i].TransactionID,
			QueueName:     items[i].Queue,
			Status:        "queued",
		}
		switch {
		case res.Error != "":
			a.Status, a.Error = "error", res.Error
		case res.Duplicate:
			a.Status, a.Offset = "duplicate", &res.Offset
		default:
			a.Offset = &res.Offset
		}
		out[i] = a
	}
	b, err := encodeJSON(out)
	if err != nil {
		panic(err)
	}
	return b
}

// TestPushAnswersSameAsReference: the hand-made answer is byte for byte
// the one encoding/json made, over results of every kind and strings
// that need escaping.
func TestPushAnswersSameAsReference(t *testing.T) {
	strs := []string{"q", "", `a"b\c`, "tab\there\nnl", "\x00\x1f\x7f", "<b>&amp;", "é😀", "\u2028\u2029", "bad\xff\xfeutf8", "\xed\xa0\x80"}
	mid := uuid.MustParse("01890a5d-ac96-774b-bcce-b302099a8057")
	var items []PushItem
	var results []PushResult
	for i := 0; i < 40; i++ {
		it := PushItem{Queue: strs[i%len(strs)], TransactionID: strs[(i*3+1)%len(strs)], MessageID: uuid.New()}
		res := PushResult{Offset: []int64{0, 7, -1, math.MaxInt64, math.MinInt64}[i%5]}
		switch i % 4 {
		case 1:
			res.Duplicate, res.MessageID = true, mid
		case 2:
			res.Error = strs[(i+2)%len(strs)] + " went wrong"
		case 3:
			res.MessageID = uuid.New()
		}
		items, results = append(items, it), append(results, res)
	}
	for n := 1; n <= len(items); n++ {
		got := appendPushAnswers(nil, items[:n], results[:n])
		if want := renderPushRef(items[:n], results[:n]); !bytes.Equal(got, want) {
			t.Fatalf("%d results:\n got %s\nwant %s", n, got, want)
		}
	}
}

// TestAppendUUID: a UUID's text as uuid.UUID.String gives it.
func TestAppendUUID(t *testing.T) {
	for i := 0; i < 100; i++ {
		id := uuid.New()
		if got := appendUUID(nil, id); string(got) != id.String() {
			t.Fatalf("appendUUID = %s, want %s", got, id)
		}
	}
	if got := appendUUID(nil, [16]byte{}); string(got) != uuid.Nil.String() {
		t.Fatalf("appendUUID(zero) = %s", got)
	}
}

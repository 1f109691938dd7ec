package httpd

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"unicode/utf8"

	"github.com/queen-mq/queen-go/contract"
)

// FuzzPushDecode: the push body decoder never panics on any bytes, refuses
// only with a 400 or 413 *Error, and every item it accepts has a payload that is
// valid JSON and a byte-exact slice of the body. Seeds live in
// testdata/fuzz/FuzzPushDecode.
func FuzzPushDecode(f *testing.F) {
	f.Add([]byte(`{"items":[{"queue":"q","payload":42.00}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		err := parseJSON(body)
		var items []PushItem
		if err == nil {
			items, err = decodePush(body)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || (e.Status != http.StatusBadRequest && e.Status != http.StatusRequestEntityTooLarge) || e.Code == "" {
				t.Fatalf("refusal %v is not a 400 or 413 *Error with a code", err)
			}
			return
		}
		if len(items) == 0 {
			t.Fatalf("accepted a push of no items")
		}
		for i, it := range items {
			if !json.Valid(it.Payload) || !bytes.Contains(body, it.Payload) {
				t.Fatalf("item %d: payload %q is not a JSON slice of the body %q", i, it.Payload, body)
			}
			if contract.Queue.Check("", it.Queue) != nil || contract.Partition.Check("", it.Partition) != nil ||
				contract.TransactionID.Check("", it.TransactionID) != nil || !utf8.Valid(it.Payload) {
				t.Fatalf("item %d: %+v was let through", i, it)
			}
			if it.Dedup != (it.TransactionID != "") {
				t.Fatalf("item %d: Dedup %v with transactionId %q", i, it.Dedup, it.TransactionID)
			}
		}
	})
}

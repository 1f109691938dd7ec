package httpd

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/queen-mq/queen-go/contract"
)

// FuzzPushDecode: the push body decoder answers every input exactly as
// the encoding/json decoder it replaced (decodePushRef): the same items,
// or the same *Error; so does decodePushItem over any object, as a
// transaction's push operation. Over bodies parseJSON passes, it refuses
// only with a 400 or 413 *Error, and every item it accepts has a payload
// that is valid JSON and a byte-exact slice of the body. Seeds live in
// testdata/fuzz/FuzzPushDecode and in pushSeeds.
func FuzzPushDecode(f *testing.F) {
	for _, s := range pushSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		samePush(t, body)
		if o, err := asObject(body, "the body"); err == nil {
			got, gotErr := decodePushItem(o, "operations[0]")
			want, wantErr := decodePushItemRef(o, "operations[0]")
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErr, wantErr) {
				t.Fatalf("decodePushItem(%q) = %+v, %v; the reference %+v, %v", body, got, gotErr, want, wantErr)
			}
		}
		items, err := fuzzDecode(t, body, decodePush, bodyRefusalOK)
		if err != nil {
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

// samePush fails t unless decodePush answers body as decodePushRef does.
func samePush(t *testing.T, body []byte) {
	t.Helper()
	got, gotErr := decodePush(body)
	want, wantErr := decodePushRef(body)
	if !reflect.DeepEqual(gotErr, wantErr) {
		t.Fatalf("decodePush(%q): error %v, the reference's %v", body, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodePush(%q) = %+v\nthe reference's %+v", body, got, want)
	}
}

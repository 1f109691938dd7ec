package storefmt

import (
	"testing"

	"github.com/queen-mq/queen-go/raftlog/internal/fuzzcheck"
)

// FuzzDecodeRecord: a stored record decodes to one that encodes back to
// the same bytes, or fails; a record with neither a trace id nor a
// producer sub is version 1, one with a trace id only version 2, one
// with a producer sub version 3.
func FuzzDecodeRecord(f *testing.F) {
	f.Add((&StoredRecord{Stamp: 5, TxID: "t", Payload: []byte(`{}`)}).Encode())
	f.Add((&StoredRecord{Stamp: 5, TxID: "t", TraceID: [16]byte{1}, Payload: []byte(`1`)}).Encode())
	f.Add((&StoredRecord{Stamp: 5, TxID: "t", ProducerSub: "alice", Payload: []byte(`1`)}).Encode())
	f.Add((&StoredRecord{Stamp: 5, TxID: "t", TraceID: [16]byte{1}, ProducerSub: "bob", Payload: []byte(`"x"`)}).Encode())
	f.Add([]byte{2, 0})
	f.Add([]byte{3, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRecord(b)
		if err != nil {
			return
		}
		fuzzcheck.Canonical(t, "stored record", b, r.Encode())
		want := byte(MetaVersion)
		switch {
		case r.ProducerSub != "":
			want = RecordProducer
		case r.TraceID != [16]byte{}:
			want = RecordTraced
		}
		if b[0] != want {
			t.Fatalf("%x: version %d with trace id %x and producer sub %q", b, b[0], r.TraceID, r.ProducerSub)
		}
	})
}

package storefmt

import (
	"bytes"
	"testing"
)

// TestRecordVersions: the bytes of each stored record version, written
// out by hand as the broker that introduced it wrote them, decode to the
// record and encode back to themselves; a record with a producer sub is
// version 3 and one without stays the older versions' bytes.
func TestRecordVersions(t *testing.T) {
	mid := [16]byte{0xaa, 15: 0xbb}
	trace := [16]byte{0xf5, 15: 1}
	head := append(append([]byte{}, 10 /* varint 5 */), mid[:]...)
	head = append(head, 2, 't', 'x')
	cases := []struct {
		name string
		raw  []byte
		want StoredRecord
	}{
		{"v1", cat([]byte{1}, head, []byte(`{}`)), StoredRecord{Stamp: 5, MsgID: mid, TxID: "tx", Payload: []byte(`{}`)}},
		{"v2 trace", cat([]byte{2}, head, trace[:], []byte(`1`)), StoredRecord{Stamp: 5, MsgID: mid, TxID: "tx", TraceID: trace, Payload: []byte(`1`)}},
		{"v3 sub", cat([]byte{3}, head, []byte{2, 3, 'b', 'o', 'b'}, []byte(`1`)),
			StoredRecord{Stamp: 5, MsgID: mid, TxID: "tx", ProducerSub: "bob", Payload: []byte(`1`)}},
		{"v3 trace and sub", cat([]byte{3}, head, []byte{3}, trace[:], []byte{1, 'a'}, []byte(`null`)),
			StoredRecord{Stamp: 5, MsgID: mid, TxID: "tx", TraceID: trace, ProducerSub: "a", Payload: []byte(`null`)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := DecodeRecord(c.raw)
			if err != nil {
				t.Fatal(err)
			}
			if r.Stamp != c.want.Stamp || r.MsgID != c.want.MsgID || r.TxID != c.want.TxID || r.TraceID != c.want.TraceID ||
				r.ProducerSub != c.want.ProducerSub || !bytes.Equal(r.Payload, c.want.Payload) {
				t.Fatalf("decoded %+v, want %+v", r, c.want)
			}
			if got := c.want.Encode(); !bytes.Equal(got, c.raw) {
				t.Fatalf("encodes to %x, want %x", got, c.raw)
			}
			if s, err := RecordStamp(c.raw); err != nil || s != 5 {
				t.Fatalf("stamp %d %v", s, err)
			}
		})
	}
	// Version 3 refuses what encode never writes: no sub, an empty sub, a
	// flag beyond trace and sub, a zero trace id.
	for _, raw := range [][]byte{
		cat([]byte{3}, head, []byte{0}, []byte(`1`)),
		cat([]byte{3}, head, []byte{2, 0}, []byte(`1`)),
		cat([]byte{3}, head, []byte{6, 1, 'a'}, []byte(`1`)),
		cat([]byte{3}, head, []byte{3}, make([]byte, 16), []byte{1, 'a'}),
		cat([]byte{3}, head),
		cat([]byte{4}, head),
	} {
		if r, err := DecodeRecord(raw); err == nil {
			t.Errorf("%x decoded to %+v", raw, r)
		}
	}
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

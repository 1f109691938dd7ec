package locks

import (
	"bytes"
	"testing"
)

// FuzzDecodeCall: any bytes decode to a call that passes Check and
// encodes back to the same bytes, or to an error; never a panic.
func FuzzDecodeCall(f *testing.F) {
	ok := Call{Tenant: "00000000-0000-0000-0000-000000000001", Ops: []Op{
		{Kind: KindAcquire, Name: "a", Owner: "o", Limit: 3, TTLSeconds: 30},
		{Kind: KindRenew, Name: "b", Token: 7, Slot: 2, TTLSeconds: 1},
		{Kind: KindRelease, Name: "c", Token: 9},
		{Kind: KindGet, Name: "d"}}}
	f.Add(ok.Op().Data)
	f.Add([]byte{codecVersion})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeCall(b)
		if err != nil {
			return
		}
		if err := Check(c.Ops); err != nil {
			t.Fatalf("%x decoded to a call Check refuses: %v", b, err)
		}
		if again := c.Op().Data; !bytes.Equal(again, b) {
			t.Fatalf("%x decoded to %+v, which encodes to %x", b, c, again)
		}
	})
}

// FuzzDecodeAnswers: any bytes give answers or an error, never a panic.
func FuzzDecodeAnswers(f *testing.F) {
	f.Add([]byte(`[{"index":0,"op":"get","name":"a","held":false,"holders":[]}]`), 1)
	f.Add([]byte(`[]`), 0)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if got, err := DecodeAnswers(b, n); err == nil && len(got) != n {
			t.Fatalf("%d answers for %d", len(got), n)
		}
	})
}

package locks

import (
	"testing"

	"github.com/queen-mq/queen-go/queen/internal/familytest"
)

// FuzzDecodeCall: any bytes decode to a call that passes Check and
// encodes back to the same bytes, or to an error; never a panic.
func FuzzDecodeCall(f *testing.F) {
	ok := Call{Tenant: "00000000-0000-0000-0000-000000000001", Ops: []Op{
		{Kind: KindAcquire, Name: "a", Owner: "o", Limit: 3, TTLSeconds: 30},
		{Kind: KindRenew, Name: "b", Token: 7, Slot: 2, TTLSeconds: 1},
		{Kind: KindRelease, Name: "c", Token: 9},
		{Kind: KindGet, Name: "d"}}}
	familytest.FuzzOps(f, decodeCall, func(c *Call) error { return Check(c.Ops) }, ok.Op().Data, []byte{codecVersion}, []byte{})
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

package streams

import (
	"bytes"
	"testing"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/queen/internal/familytest"
)

const fuzzTenant = "00000000-0000-0000-0000-000000000001"

// FuzzDecodeOp: any bytes decode to an op that passes check and encodes
// back to the same bytes, or to an error; never a panic.
func FuzzDecodeOp(f *testing.F) {
	reg := RegisterOp{Tenant: fuzzTenant, Name: "q", Source: "src", Sink: "out", ConfigHash: "h", Reset: true}
	cy := CycleOp{Tenant: fuzzTenant, ID: mintID(fuzzTenant, "q", 9), Partition: "7", Group: "streams.q", Ops: []StateOp{
		{Kind: StateUpsert, Key: "tumb:1\x1fw\x1fk", Value: []byte(`{"acc":1}`)}, {Kind: StateDelete, Key: "old"}}}
	del := DeleteOp{Tenant: fuzzTenant, Name: "q"}
	drop := DropSourceOp{Tenant: fuzzTenant, Queue: "src"}
	familytest.FuzzOps(f, decodeOp, func(o family.Op[*state]) error { return check(o) },
		reg.Op().Data, cy.Op().Data, del.Op().Data, drop.Op().Data, []byte{opVersion}, []byte{})
}

// FuzzDecodeAnswers: any bytes give an answer or an error, never a
// panic; a register answer that decodes encodes back the same.
func FuzzDecodeAnswers(f *testing.F) {
	a := RegisterAnswer{Query: Query{ID: mintID(fuzzTenant, "q", 3), Name: "q", Source: "s", ConfigHash: "h", Group: "g", Rows: 2, Bytes: 40}, Fresh: true}
	f.Add(appendRegister(nil, &a))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, err := DecodeRegister(b); err == nil {
			if again := appendRegister(nil, &got); !bytes.Equal(again, b) && b[0]&^7 == 0 {
				t.Fatalf("%x decoded to %+v, which encodes to %x", b, got, again)
			}
		}
		DecodeCycle(b)
		DecodeCycleRollback(b)
		DecodeDelete(b)
		DecodeDropSource(b)
	})
}

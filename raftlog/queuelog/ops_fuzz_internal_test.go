package queuelog

import (
	"bytes"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/internal/fuzzcheck"
)

// checkDecoded fails the test unless decode refuses raw with
// raftlog.ErrCorruptEntry or decodes it to an op (what) that encodes back
// to raw.
func checkDecoded[O any, P interface {
	*O
	Op() raftlog.Op
}](t *testing.T, what string, raw []byte, decode func([]byte) (O, error)) {
	t.Helper()
	if o, err := decode(raw); err != nil {
		fuzzcheck.Refusal(t, err, raftlog.ErrCorruptEntry)
	} else {
		fuzzcheck.Canonical(t, what, raw, P(&o).Op().Data)
	}
}

// checkRoundTrip fails the test unless op encodes as an op of kind that
// decode gives back equal to op.
func checkRoundTrip[O comparable, P interface {
	*O
	Op() raftlog.Op
}](t *testing.T, op O, kind raftlog.OpKind, decode func([]byte) (O, error)) {
	t.Helper()
	enc := P(&op).Op()
	got, err := decode(enc.Data)
	if err != nil || enc.Kind != kind || got != op {
		t.Fatalf("decoded %+v, %v (kind %d) from %+v", got, err, enc.Kind, op)
	}
}

// FuzzPushOp: a PushOp survives its encoding field for field, and bytes
// that decode as one encode back to themselves.
func FuzzPushOp(f *testing.F) {
	f.Add([]byte{}, "t", "q", "p", "tx", []byte("0123456789abcdef"), true, []byte(`{"a":1}`), uint8(1))
	f.Add((&PushOp{Tenant: "t", Items: []PushItem{{Queue: "q", Partition: "p", Payload: []byte{0, 1}}}}).Op().Data, "", "", "", "", []byte(nil), false, []byte(nil), uint8(0))
	f.Add([]byte{1, 0, 1, 1, 'q', 1, 'p', 0}, "t", "q", "p", "", []byte{}, false, []byte{}, uint8(3))
	f.Add((&PushOp{Tenant: "t", Items: []PushItem{{Queue: "q", Partition: "p", TraceID: [16]byte{9}, Payload: []byte{1}}}}).Op().Data, "", "", "", "", []byte(nil), false, []byte(nil), uint8(0))
	f.Add((&PushOp{Tenant: "t", Items: []PushItem{{Queue: "q", Partition: "p", TraceID: [16]byte{9}, ProducerSub: "svc", Payload: []byte{1}}}}).Op().Data, "", "", "", "", []byte(nil), false, []byte(nil), uint8(0))
	f.Add((&PushOp{Tenant: "t", Items: []PushItem{{Queue: "q", Partition: "p", ProducerSub: "s", Payload: []byte{1}}}}).Op().Data, "", "", "", "", []byte(nil), false, []byte(nil), uint8(0))
	f.Fuzz(func(t *testing.T, raw []byte, tenant, queue, partition, txid string, mid []byte, dedup bool, payload []byte, n uint8) {
		if p, err := decodePushOp(raw); err != nil {
			fuzzcheck.Refusal(t, err, raftlog.ErrCorruptEntry)
		} else if raw[0] == pushVersion {
			// Version 1 (an older broker's) decodes, and encodes as 2.
			fuzzcheck.Canonical(t, "push op", raw, p.Op().Data)
		}
		op := PushOp{Tenant: tenant}
		for i := range int(n % 6) {
			// Items 0, 2, 4 in one partition, 1 and 5 in another of the
			// same queue, 3 in another queue: the name lists hold each once.
			q, p := queue, partition
			switch i {
			case 1, 5:
				p += "/2"
			case 3:
				q += "/2"
			}
			it := PushItem{Queue: q, Partition: p, TransactionID: txid, Dedup: dedup != (i%2 == 1), Payload: payload}
			copy(it.MessageID[:], mid)
			it.MessageID[15] = byte(i)
			if i%3 == 2 { // some items carry a trace id
				it.TraceID = it.MessageID
				it.TraceID[0] |= 0x80
			}
			if i%2 == 1 { // some a producer sub, with or without a trace id
				it.ProducerSub = "sub:" + txid
			}
			op.Items = append(op.Items, it)
		}
		enc := op.Op()
		if enc.Kind != OpPush {
			t.Fatalf("kind %d", enc.Kind)
		}
		got, err := decodePushOp(enc.Data)
		if err != nil {
			t.Fatalf("decode of %+v: %v", op, err)
		}
		if got.Tenant != op.Tenant || len(got.Items) != len(op.Items) {
			t.Fatalf("decoded %+v from %+v", got, op)
		}
		for i, it := range got.Items {
			w := op.Items[i]
			if it.Queue != w.Queue || it.Partition != w.Partition || it.TransactionID != w.TransactionID ||
				it.MessageID != w.MessageID || it.Dedup != w.Dedup || it.TraceID != w.TraceID || it.ProducerSub != w.ProducerSub ||
				!bytes.Equal(it.Payload, w.Payload) {
				t.Fatalf("item %d decoded %+v from %+v", i, it, w)
			}
		}
		fuzzcheck.Canonical(t, "push op", enc.Data, got.Op().Data)
	})
}

// FuzzConfigureOp: the same for ConfigureOp.
func FuzzConfigureOp(f *testing.F) {
	f.Add([]byte{}, "t", "q", true, []byte(`{"dedupWindowSeconds":5}`))
	f.Add((&ConfigureOp{Tenant: "t", Queue: "q", Options: []byte(`{}`)}).Op().Data, "", "", false, []byte(nil))
	f.Fuzz(func(t *testing.T, raw []byte, tenant, queue string, replace bool, options []byte) {
		checkDecoded(t, "configure op", raw, decodeConfigureOp)
		op := ConfigureOp{Tenant: tenant, Queue: queue, Replace: replace, Options: options}
		enc := op.Op()
		got, err := decodeConfigureOp(enc.Data)
		if err != nil || enc.Kind != OpConfigure {
			t.Fatalf("decode of %+v (kind %d): %v", op, enc.Kind, err)
		}
		if got.Tenant != tenant || got.Queue != queue || got.Replace != replace || !bytes.Equal(got.Options, options) {
			t.Fatalf("decoded %+v from %+v", got, op)
		}
	})
}

// FuzzTrimOp: the same for TrimOp.
func FuzzTrimOp(f *testing.F) {
	f.Add([]byte{}, "t", "q", "", int64(1_795_990_000_000_000))
	f.Add((&TrimOp{Tenant: "t", Queue: "q", Partition: "p", Before: -5}).Op().Data, "", "", "p", int64(0))
	f.Fuzz(func(t *testing.T, raw []byte, tenant, queue, partition string, before int64) {
		checkDecoded(t, "trim op", raw, decodeTrimOp)
		op := TrimOp{Tenant: tenant, Queue: queue, Partition: partition, Before: before}
		checkRoundTrip(t, op, OpTrim, decodeTrimOp)
	})
}

// FuzzDedupSweepOp: the same for DedupSweepOp.
func FuzzDedupSweepOp(f *testing.F) {
	f.Add((&DedupSweepOp{Tenant: "t", Queue: "q", Partition: "p", Limit: 100}).Op().Data, "", "", "p", 5)
	f.Fuzz(func(t *testing.T, raw []byte, tenant, queue, partition string, limit int) {
		checkDecoded(t, "dedup sweep op", raw, decodeDedupSweepOp)
		limit = min(max(limit, 0), 1<<20)
		op := DedupSweepOp{Tenant: tenant, Queue: queue, Partition: partition, Limit: limit}
		checkRoundTrip(t, op, OpDedupSweep, decodeDedupSweepOp)
	})
}

// FuzzDeleteQueueOp: the same for DeleteQueueOp, and its answer.
func FuzzDeleteQueueOp(f *testing.F) {
	f.Add((&DeleteQueueOp{Tenant: "t", Queue: "q"}).Op().Data, "t", "q")
	f.Add([]byte{opVersion}, "", "")
	f.Fuzz(func(t *testing.T, raw []byte, tenant, queue string) {
		checkDecoded(t, "delete queue op", raw, decodeDeleteQueueOp)
		op := DeleteQueueOp{Tenant: tenant, Queue: queue}
		checkRoundTrip(t, op, OpDeleteQueue, decodeDeleteQueueOp)
		if a, err := DecodeDeleteQueueAnswer(raw); err == nil {
			if b, err := DecodeDeleteQueueAnswer(appendDeleteQueueAnswer(nil, a)); err != nil || b != a {
				t.Fatalf("answer %x decoded to %+v, which re-encodes to %+v %v", raw, a, b, err)
			}
		}
	})
}

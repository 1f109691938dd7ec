package wire

import (
	"bytes"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func v7(t testing.TB) [16]byte {
	id, err := uuid.NewV7()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func sampleGroups(t testing.TB) []Group {
	return []Group{
		{Queue: "orders", Partition: "eu", Messages: []Message{
			{TransactionID: "t-1", ID: v7(t), Payload: []byte(`{"a": 1}`)},
			{TransactionID: "t-2", ID: v7(t), Payload: []byte(` [1, 2] `)},
		}},
		{Queue: "audit", Partition: "Default", Messages: []Message{{TransactionID: "x", ID: v7(t), Payload: []byte(`null`)}}},
	}
}

// strip drops what a layout does not carry: ids outside frames, and
// transaction ids without flag 4.
func strip(groups []Group, ids, txns bool) []Group {
	out := make([]Group, len(groups))
	for i, g := range groups {
		out[i] = Group{Queue: g.Queue, Partition: g.Partition, Messages: make([]Message, len(g.Messages))}
		for j, m := range g.Messages {
			out[i].Messages[j] = Message{Payload: m.Payload}
			if ids {
				out[i].Messages[j].ID = m.ID
			}
			if txns {
				out[i].Messages[j].TransactionID = m.TransactionID
			}
		}
	}
	return out
}

func TestPushRoundTrip(t *testing.T) {
	groups := sampleGroups(t)
	for _, o := range []PushOptions{{}, {TxnIDs: true}, {Compress: true, TxnIDs: true}, {Counts: true}, {Frames: true}, {Frames: true, Counts: true}} {
		body, err := AppendPush(nil, groups, o)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewDecoder(1 << 20).Push(body)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if p.Counts != o.Counts || p.Framed != o.Frames {
			t.Errorf("%+v: read counts %v framed %v", o, p.Counts, p.Framed)
		}
		if exp := strip(groups, o.Frames, o.TxnIDs || o.Frames); !reflect.DeepEqual(p.Groups, exp) {
			t.Errorf("%+v: groups = %+v, want %+v", o, p.Groups, exp)
		}
	}
}

func TestTransactionRoundTrip(t *testing.T) {
	groups := sampleGroups(t)
	head := []byte(`{"operations":[]}`)
	body, err := AppendTransaction(nil, head, groups, true)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := NewDecoder(1 << 20).Transaction(body)
	if err != nil {
		t.Fatal(err)
	}
	if !tx.Counts || !bytes.Equal(tx.Head, head) || !reflect.DeepEqual(tx.Groups, groups) {
		t.Errorf("got %+v", tx)
	}
}

func TestPopRoundTrip(t *testing.T) {
	p := Pop{Own: []byte(`{"conflation":true}`), Queue: "q", LeaseID: "l-1", ConsumerGroup: "g",
		Claims: []Claim{{PartitionID: 7, Partition: "eu", Start: 3, End: 5, DeliveryAttempt: 2, Records: []Record{
			{BaseOffset: 3, CreatedAt: 1_700_000_000_000_000, Frames: []Frame{
				{ID: v7(t), TransactionID: "a", Payload: []byte(`1`)},
				{ID: v7(t), TraceID: v7(t), HasTrace: true, TransactionID: "b", Payload: []byte(`{"x":[]}`)},
			}},
			{BaseOffset: 5, CreatedAt: -1, Frames: []Frame{{ID: v7(t), TransactionID: "c", Producer: "sub", HasProducer: true}}},
		}}}}
	b, err := AppendPop(nil, &p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := NewDecoder(1 << 20).DecodePop(b)
	if err != nil {
		t.Fatal(err)
	}
	// An empty payload reads back as an empty, not nil, slice.
	got.Claims[0].Records[1].Frames[0].Payload = nil
	if !reflect.DeepEqual(got, p) {
		t.Errorf("got %+v\nwant %+v", got, p)
	}
}

// Every truncation of a valid body is refused with an error, never a
// panic or a shorter body read as whole.
func TestTruncatedBodiesAreRefused(t *testing.T) {
	d := NewDecoder(1 << 20)
	groups := sampleGroups(t)
	for _, o := range []PushOptions{{TxnIDs: true}, {Compress: true}, {Frames: true}} {
		body, _ := AppendPush(nil, groups, o)
		for n := 0; n < len(body); n++ {
			if _, err := d.Push(body[:n]); err == nil {
				t.Fatalf("%+v: the first %d of %d bytes read as a whole body", o, n, len(body))
			}
		}
	}
	body, _ := AppendTransaction(nil, []byte(`{}`), groups, false)
	for n := 0; n < len(body); n++ {
		if _, err := d.Transaction(body[:n]); err == nil {
			t.Fatalf("transaction: the first %d of %d bytes read as a whole body", n, len(body))
		}
	}
}

func TestRefusals(t *testing.T) {
	d := NewDecoder(1 << 20)
	ok, _ := AppendPush(nil, sampleGroups(t), PushOptions{TxnIDs: true})
	badID := sampleGroups(t)
	badID[0].Messages[1].ID = [16]byte{1, 2, 3}
	framedBadID, _ := AppendPush(nil, badID, PushOptions{Frames: true})
	for _, c := range []struct {
		name, want string
		body       []byte
	}{
		{"json", "does not start with QPB1", []byte(`{"items":[]}`)},
		{"unknown flag", "flags: unknown flags 0x10", append([]byte("QPB1\x14"), ok[5:]...)},
		{"trailing bytes", "after the end", append(append([]byte(nil), ok...), 0)},
		{"huge group count", "groups: 4294967295 entries cannot fit", []byte("QPB1\x00\xff\xff\xff\xff")},
		{"bad message id", "groups[0].messages[1].id: the message id is not a version-7 UUID", framedBadID},
		{"payload past the end", "groups[0].messages[0].payload: 4096 bytes run past the end", []byte("QPB1\x00\x01\x00\x00\x00\x01\x00q\x00\x00\x01\x00\x00\x00\x00\x10\x00\x00{}")},
	} {
		_, err := d.Push(c.body)
		var we *Error
		if !errors.As(err, &we) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want an *Error containing %q", c.name, err, c.want)
		}
	}
}

// A small body that decompresses past the budget is ErrTooLarge, with
// and without a declared size.
func TestDecompressionBomb(t *testing.T) {
	big := []Group{{Queue: "q", Partition: "p", Messages: []Message{{ID: v7(t), TransactionID: "x", Payload: bytes.Repeat([]byte(" "), 1<<20)}}}}
	for _, o := range []PushOptions{{Compress: true}, {Frames: true}} {
		body, err := AppendPush(nil, big, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(body) > 1<<12 {
			t.Fatalf("%+v: body of %d bytes is no bomb", o, len(body))
		}
		if _, err := NewDecoder(64 << 10).Push(body); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%+v: err = %v, want ErrTooLarge", o, err)
		}
		if _, err := NewDecoder(2 << 20).Push(body); err != nil {
			t.Errorf("%+v: within the budget: %v", o, err)
		}
	}
}

// A tiny body that declares a huge decompressed size does not make the
// decoder reserve it.
func TestDeclaredSizeIsNotReserved(t *testing.T) {
	body := []byte("QPB1\x01\xff\xff\xff\x03\x28\xb5\x2f\xfd") // raw_len 64 MiB - 1, a truncated frame
	d := NewDecoder(64 << 20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := d.Push(body)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a truncated zstd frame decoded")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("a 13-byte body made the decoder allocate %d bytes", grew)
	}
}

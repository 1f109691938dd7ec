package wire

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// seedBodies adds the client's own bodies (testdata) and ours to f.
func seedBodies(f *testing.F, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzPush: any body decodes without a panic; one that decodes encodes
// back (with the layout its flags name) to a body that decodes to the
// same groups.
func FuzzPush(f *testing.F) {
	seedBodies(f, "push_plain.bin", "push_frames.bin", "push_zstd_counts.bin", "push_frames_counts.bin")
	for _, o := range []PushOptions{{}, {TxnIDs: true, Compress: true}, {Frames: true}} {
		b, _ := AppendPush(nil, sampleGroups(f), o)
		f.Add(b)
	}
	d := NewDecoder(1 << 20)
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := d.Push(body)
		if err != nil {
			return
		}
		o := PushOptions{Counts: p.Counts, Frames: p.Framed, TxnIDs: true}
		again, err := AppendPush(nil, p.Groups, o)
		if err != nil {
			return // a text the decoder read cannot be longer than 65535
		}
		q, err := d.Push(again)
		if err != nil {
			t.Fatalf("re-encoded body refused: %v", err)
		}
		if !reflect.DeepEqual(normal(q.Groups), normal(p.Groups)) || q.Counts != p.Counts || q.Framed != p.Framed {
			t.Fatalf("round trip changed the push:\n%+v\n%+v", p, q)
		}
	})
}

// FuzzTransaction: as FuzzPush, for the binary transaction.
func FuzzTransaction(f *testing.F) {
	seedBodies(f, "txn.bin", "txn_counts.bin")
	d := NewDecoder(1 << 20)
	f.Fuzz(func(t *testing.T, body []byte) {
		tx, err := d.Transaction(body)
		if err != nil {
			return
		}
		again, err := AppendTransaction(nil, tx.Head, tx.Groups, tx.Counts)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		u, err := d.Transaction(again)
		if err != nil {
			t.Fatalf("re-encoded body refused: %v", err)
		}
		if !reflect.DeepEqual(normal(u.Groups), normal(tx.Groups)) || string(u.Head) != string(tx.Head) || u.Counts != tx.Counts {
			t.Fatalf("round trip changed the transaction:\n%+v\n%+v", tx, u)
		}
	})
}

// FuzzPop: any answer decodes without a panic; one that decodes encodes
// back (raw records) to one that decodes the same.
func FuzzPop(f *testing.F) {
	p := Pop{Own: []byte(`{}`), Queue: "q", LeaseID: "l", ConsumerGroup: "g", Claims: []Claim{{PartitionID: 1, Partition: "p", Start: 0, End: 1,
		Records: []Record{{BaseOffset: 0, CreatedAt: 5, Frames: []Frame{{ID: v7(f), TransactionID: "t", Payload: []byte("1")}, {HasTrace: true, HasProducer: true, Producer: "s"}}}}}}}
	b, _ := AppendPop(nil, &p)
	f.Add(b)
	d := NewDecoder(1 << 20)
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := d.DecodePop(body)
		if err != nil {
			return
		}
		again, err := AppendPop(nil, &p)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		q, err := d.DecodePop(again)
		if err != nil {
			t.Fatalf("re-encoded answer refused: %v", err)
		}
		if !reflect.DeepEqual(normalPop(q), normalPop(p)) {
			t.Fatalf("round trip changed the answer:\n%+v\n%+v", p, q)
		}
	})
}

// normal makes empty slices nil, so that DeepEqual compares content.
func normal(groups []Group) []Group {
	for i := range groups {
		if len(groups[i].Messages) == 0 {
			groups[i].Messages = nil
		}
		for j := range groups[i].Messages {
			if len(groups[i].Messages[j].Payload) == 0 {
				groups[i].Messages[j].Payload = nil
			}
		}
	}
	if len(groups) == 0 {
		return nil
	}
	return groups
}

func normalPop(p Pop) Pop {
	if len(p.Own) == 0 {
		p.Own = nil
	}
	if len(p.Claims) == 0 {
		p.Claims = nil
	}
	for i := range p.Claims {
		c := &p.Claims[i]
		if len(c.Records) == 0 {
			c.Records = nil
		}
		for j := range c.Records {
			r := &c.Records[j]
			if len(r.Frames) == 0 {
				r.Frames = nil
			}
			for k := range r.Frames {
				if len(r.Frames[k].Payload) == 0 {
					r.Frames[k].Payload = nil
				}
			}
		}
	}
	return p
}

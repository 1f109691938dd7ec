package wire

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
)

// The bodies in testdata were encoded by the official client itself
// (testdata/client_bodies.py): these tests read them as the broker must.

func readBody(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// want is one message as the client's items describe it.
type want struct{ queue, partition, txn, payload string }

// The items client_bodies.py pushes, as the client encodes them: the
// payload in json.dumps's compact form, partition "Default" when unnamed.
var clientItems = []want{
	{"orders", "eu", "t-1", `{"id":1,"name":"é ☃"}`},
	{"orders", "eu", "", `[1,2.5,null,true]`},
	{"orders", "Default", "", `"text"`},
	{"audit", "p", "t-4", `null`},
}

func flatten(groups []Group) (out []want, ids [][16]byte) {
	for _, g := range groups {
		for _, m := range g.Messages {
			out = append(out, want{g.Queue, g.Partition, m.TransactionID, string(m.Payload)})
			ids = append(ids, m.ID)
		}
	}
	return out, ids
}

// decodePush decodes the push body in testdata/name.
func decodePush(t *testing.T, name string) Push {
	t.Helper()
	p, err := NewDecoder(1 << 20).Push(readBody(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// withIDText is exp with the text of ids[i] as the transaction id of each
// message i that has none: a framed message without one carries its id's
// text.
func withIDText(exp []want, ids [][16]byte) []want {
	out := append([]want(nil), exp...)
	for i := range out {
		if out[i].txn == "" {
			out[i].txn = uuid.UUID(ids[i]).String()
		}
	}
	return out
}

func sameItems(t *testing.T, got, exp []want) {
	t.Helper()
	if len(got) != len(exp) {
		t.Fatalf("got %d messages %q, want %d %q", len(got), got, len(exp), exp)
	}
	for i := range exp {
		if got[i] != exp[i] {
			t.Errorf("message %d = %q, want %q", i, got[i], exp[i])
		}
	}
}

func TestClientPlainPush(t *testing.T) {
	p := decodePush(t, "push_plain.bin")
	if p.Counts || p.Framed {
		t.Errorf("flags read as counts %v framed %v, want neither", p.Counts, p.Framed)
	}
	if len(p.Groups) != 3 {
		t.Errorf("%d groups, want 3 (consecutive items of one partition share one)", len(p.Groups))
	}
	got, ids := flatten(p.Groups)
	sameItems(t, got, clientItems)
	for i, id := range ids {
		if id != ([16]byte{}) {
			t.Errorf("message %d has an id %x; a plain push carries none", i, id)
		}
	}
}

func TestClientFramedPush(t *testing.T) {
	p := decodePush(t, "push_frames.bin")
	if !p.Framed || p.Counts {
		t.Fatalf("flags read as counts %v framed %v, want framed", p.Counts, p.Framed)
	}
	got, ids := flatten(p.Groups)
	sameItems(t, got, withIDText(clientItems, ids))
	for i, id := range ids {
		if uuid.UUID(id).Version() != 7 {
			t.Errorf("message %d id %s is not a version-7 UUID", i, uuid.UUID(id))
		}
	}
}

func TestClientCompressedCountsPush(t *testing.T) {
	p := decodePush(t, "push_zstd_counts.bin")
	if !p.Counts || p.Framed {
		t.Errorf("flags read as counts %v framed %v, want counts", p.Counts, p.Framed)
	}
	got, _ := flatten(p.Groups)
	sameItems(t, got, []want{{"orders", "Default", "", `{"a":1}`}, {"orders", "Default", "", `"x"`}})
}

func TestClientFramedCountsPush(t *testing.T) {
	p := decodePush(t, "push_frames_counts.bin")
	got, ids := flatten(p.Groups)
	sameItems(t, got, []want{{"q", "p", "a", "1"}, {"q", "p", uuid.UUID(ids[1]).String(), "2"}, {"q", "p", "c", "3"}})
	if !p.Counts {
		t.Error("counts flag lost")
	}
}

func TestClientTransaction(t *testing.T) {
	tx, err := NewDecoder(1 << 20).Transaction(readBody(t, "txn.bin"))
	if err != nil {
		t.Fatal(err)
	}
	const head = `{"operations":[{"type":"ack","transactionId":"m-1","partitionId":"7","status":"completed"}],"requiredLeases":["lease-1"]}`
	if string(tx.Head) != head {
		t.Errorf("head = %s, want %s", tx.Head, head)
	}
	got, ids := flatten(tx.Groups)
	sameItems(t, got, withIDText([]want{clientItems[0], clientItems[1], {"audit", "Default", "", `{"k":"v"}`}}, ids))
	if tx.Counts {
		t.Error("counts read, not sent")
	}

	tx, err = NewDecoder(1 << 20).Transaction(readBody(t, "txn_counts.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if !tx.Counts || len(tx.Head) != 0 {
		t.Errorf("counts %v head %q, want counts and no head", tx.Counts, tx.Head)
	}
	got, _ = flatten(tx.Groups)
	sameItems(t, got, []want{{"q", "Default", "x", "{}"}})
}

package raftlog

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// writeThen writes its data's key=value pairs ("k=v;k2=v2"), notifies
// "n", and then fails as its last byte says: 'a' aborts, 'r' refuses, 's'
// is a storage error, anything else applies.
type writeThen struct{}

func (writeThen) Apply(tx *Txn, at ApplyInfo, data []byte) ([]byte, error) {
	s := string(data)
	how := s[len(s)-1]
	for _, pair := range strings.Split(s[:len(s)-1], ";") {
		if k, v, ok := strings.Cut(pair, "="); ok {
			tx.Set([]byte(k), []byte(v))
		}
	}
	tx.Delete([]byte("gone"))
	tx.Notify("n")
	switch how {
	case 'a':
		return nil, Abort([]byte("why"))
	case 'r':
		return nil, errors.New("no such thing")
	case 's':
		return nil, ErrStorage
	}
	return []byte("ok"), nil
}

// TestTxnApplyNested: an op applied through Txn.Apply that aborts or is
// refused leaves nothing of its own, and the writes before it stand as
// they were, even those of keys it wrote over.
func TestTxnApplyNested(t *testing.T) {
	db := memDB(t)
	if err := db.Set([]byte("gone"), []byte("still"), nil); err != nil {
		t.Fatal(err)
	}
	b := db.NewIndexedBatch()
	defer b.Close()
	tx := &Txn{appliers: map[OpKind]Applier{9: writeThen{}}}
	tx.reset(b, nil, nil)
	tx.Set([]byte("a"), []byte("1"))
	tx.Notify("before")

	for _, how := range []string{"a", "r"} {
		answer, applied, err := tx.Apply(ApplyInfo{}, Op{Kind: 9, Data: []byte("a=2;b=3" + how)})
		if err != nil || applied {
			t.Fatalf("%s: applied %v, err %v", how, applied, err)
		}
		if how == "a" && string(answer) != "why" {
			t.Fatalf("abort answered %q", answer)
		}
		if why, ok := Rejected(answer); how == "r" && (!ok || why != "no such thing") {
			t.Fatalf("refusal answered %q", answer)
		}
		mustGet(t, tx, "a", "1", true)
		mustGet(t, tx, "b", "", false)
		mustGet(t, tx, "gone", "still", true)
		if got := txnScan(t, tx, nil, nil, 0); len(got) != 2 || got[0] != "a=1" || got[1] != "gone=still" {
			t.Fatalf("%s: scan %v", how, got)
		}
		if len(tx.notify) != 1 || tx.Writes() != 1 {
			t.Fatalf("%s: notify %v, writes %d", how, tx.notify, tx.Writes())
		}
	}
	if _, _, err := tx.Apply(ApplyInfo{}, Op{Kind: 9, Data: []byte("s")}); !errors.Is(err, ErrStorage) {
		t.Fatalf("storage error: %v", err)
	}
	tx.rollback(1, 0, 1)
	answer, applied, err := tx.Apply(ApplyInfo{}, Op{Kind: 9, Data: []byte("b=3.")})
	if err != nil || !applied || string(answer) != "ok" {
		t.Fatalf("applied %v %q %v", applied, answer, err)
	}
	mustGet(t, tx, "b", "3", true)
	mustGet(t, tx, "gone", "", false)
	if _, applied, _ := tx.Apply(ApplyInfo{}, Op{Kind: 7}); applied {
		t.Fatal("an op of no applier applied")
	}
}

func mustGet(t *testing.T, tx *Txn, key, want string, found bool) {
	t.Helper()
	v, ok, err := tx.Get([]byte(key))
	if err != nil || ok != found || string(v) != want {
		t.Fatalf("get %s = %q %v %v, want %q %v", key, v, ok, err, want, found)
	}
}

// nestedNum answers the Nested number it was applied with.
type nestedNum struct{}

func (nestedNum) Apply(tx *Txn, at ApplyInfo, data []byte) ([]byte, error) {
	return []byte(strconv.Itoa(at.Nested)), nil
}

// TestTxnApplyNumbers: each op applied through Txn.Apply in an entry gets
// a Nested number of its own, from 1, so ids derived from ApplyInfo
// differ (queuelog's TestDerivedUUIDNested); a new entry starts again.
func TestTxnApplyNumbers(t *testing.T) {
	db := memDB(t)
	b := db.NewIndexedBatch()
	defer b.Close()
	tx := &Txn{appliers: map[OpKind]Applier{5: nestedNum{}}}
	for range 2 {
		tx.reset(b, nil, nil)
		for want := 1; want <= 3; want++ {
			answer, applied, err := tx.Apply(ApplyInfo{Op: 0}, Op{Kind: 5})
			if err != nil || !applied || string(answer) != strconv.Itoa(want) {
				t.Fatalf("nested op %d answered %q %v %v", want, answer, applied, err)
			}
		}
	}
}

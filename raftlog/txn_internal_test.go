package raftlog

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

func memDB(t testing.TB) *pebble.DB {
	t.Helper()
	db, err := pebble.Open("", &pebble.Options{FS: vfs.NewMem(), Logger: quietPebble{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// txnScan collects what tx.Scan answers as "k=v" strings, stopping after
// limit keys (0: none).
func txnScan(t testing.TB, tx *Txn, lower, upper []byte, limit int) []string {
	t.Helper()
	var out []string
	err := tx.Scan(lower, upper, func(k, v []byte) bool {
		out = append(out, string(k)+"="+string(v))
		return limit == 0 || len(out) < limit
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// modelScan is what a scan of m answers.
func modelScan(m map[string]string, lower, upper []byte, limit int) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k >= string(lower) && (upper == nil || k < string(upper)) && (limit == 0 || len(out) < limit) {
			out = append(out, k+"="+m[k])
		}
	}
	return out
}

func dbContents(t testing.TB, db *pebble.DB) map[string]string {
	t.Helper()
	it, err := db.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	m := map[string]string{}
	for it.First(); it.Valid(); it.Next() {
		m[string(it.Key())] = string(it.Value())
	}
	return m
}

// TestTxnOwnWrites walks the cases by hand: reads of own writes, Delete,
// DeleteRange then Get and Scan, and a Set after a range that covers it.
func TestTxnOwnWrites(t *testing.T) {
	db := memDB(t)
	for _, k := range []string{"a", "c", "e", "g"} {
		if err := db.Set([]byte(k), []byte(k+"0"), nil); err != nil {
			t.Fatal(err)
		}
	}
	b := db.NewIndexedBatch()
	defer b.Close()
	var tx Txn
	tx.reset(b, nil, nil)
	get := func(k string) string {
		v, ok, err := tx.Get([]byte(k))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return "-"
		}
		return string(v)
	}
	check := func(what string, got, want any) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
	}
	tx.Set([]byte("b"), []byte("b1"))
	tx.Set([]byte("c"), []byte("c1"))
	check("own write", get("b"), "b1")
	check("own overwrite", get("c"), "c1")
	check("stored", get("a"), "a0")
	check("scan merges own writes in order", txnScan(t, &tx, nil, nil, 0), []string{"a=a0", "b=b1", "c=c1", "e=e0", "g=g0"})
	tx.Delete([]byte("e"))
	check("deleted", get("e"), "-")
	check("scan without the deleted", txnScan(t, &tx, []byte("b"), []byte("g"), 0), []string{"b=b1", "c=c1"})
	tx.DeleteRange([]byte("a"), []byte("c"))
	check("stored key in a range", get("a"), "-")
	check("own write in a later range", get("b"), "-")
	check("own write past the range's end", get("c"), "c1")
	tx.Set([]byte("a"), []byte("a2"))
	check("set after the range", get("a"), "a2")
	check("scan after the range", txnScan(t, &tx, nil, nil, 0), []string{"a=a2", "c=c1", "g=g0"})
	check("scan stops when fn says", txnScan(t, &tx, nil, nil, 2), []string{"a=a2", "c=c1"})
	if v, _, _ := tx.Get([]byte("a")); true {
		v[0] = '!' // Get's value is the caller's
	}
	check("after the caller changed a value it got", get("a"), "a2")
	if err := tx.flush(); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(pebble.Sync); err != nil {
		t.Fatal(err)
	}
	check("stored after flush", dbContents(t, db), map[string]string{"a": "a2", "c": "c1", "g": "g0"})
}

// TestTxnModel applies random Set, Delete, DeleteRange, Get and Scan calls
// to Txns over an indexed batch, several entries per batch, some flushed
// and some dropped (aborted), some batches committed and some not, and
// checks every read and the store against a map. Keys starting with 'P' or
// 'Q' go through the metadata cache.
func TestTxnModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var keys [][]byte
	for _, a := range "PQRx" {
		for _, b := range "abc" {
			keys = append(keys, []byte{byte(a), byte(b)}, []byte{byte(a), byte(b), 'z'})
		}
	}
	bound := func() []byte {
		if rng.IntN(8) == 0 {
			return []byte{"PQRSx"[rng.IntN(5)]}
		}
		return keys[rng.IntN(len(keys))]
	}
	db := memDB(t)
	stored := map[string]string{}
	var cache metaCache
	var tx Txn
	for batch := range 300 {
		b := db.NewIndexedBatch()
		inBatch := maps.Clone(stored)
		for entry := range 1 + rng.IntN(4) {
			tx.reset(b, &cache, nil)
			m := maps.Clone(inBatch)
			for op := range 1 + rng.IntN(12) {
				k := keys[rng.IntN(len(keys))]
				switch rng.IntN(6) {
				case 0, 1:
					v := fmt.Sprintf("%d.%d.%d", batch, entry, op)
					tx.Set(k, []byte(v))
					m[string(k)] = v
				case 2:
					tx.Delete(k)
					delete(m, string(k))
				case 3:
					lo, hi := bound(), bound()
					tx.DeleteRange(lo, hi)
					for mk := range m {
						if mk >= string(lo) && mk < string(hi) {
							delete(m, mk)
						}
					}
				case 4:
					lo, hi, limit := bound(), bound(), rng.IntN(3)
					if rng.IntN(4) == 0 {
						hi = nil
					}
					if got, want := txnScan(t, &tx, lo, hi, limit), modelScan(m, lo, hi, limit); !slices.Equal(got, want) {
						t.Fatalf("batch %d entry %d: scan [%s, %s) limit %d: %v, want %v", batch, entry, lo, hi, limit, got, want)
					}
				}
				got, ok, err := tx.Get(k)
				if want, wok := m[string(k)]; err != nil || ok != wok || string(got) != want {
					t.Fatalf("batch %d entry %d: get %s: %q %v %v, want %q %v", batch, entry, k, got, ok, err, want, wok)
				}
			}
			if rng.IntN(4) > 0 { // flushed; otherwise aborted, leaving nothing
				if err := tx.flush(); err != nil {
					t.Fatal(err)
				}
				inBatch = m
			}
		}
		if rng.IntN(5) > 0 {
			if err := b.Commit(pebble.NoSync); err != nil {
				t.Fatal(err)
			}
			stored = inBatch
		} else {
			cache.clear() // as Update does when it fails
		}
		b.Close()
		if got := dbContents(t, db); !maps.Equal(got, stored) {
			t.Fatalf("batch %d: stored %v, want %v", batch, got, stored)
		}
	}
	if len(cache.vals) == 0 {
		t.Fatal("the cache was never used")
	}
}

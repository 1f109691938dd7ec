package raftlog

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	oldrecord "github.com/cockroachdb/pebble/record"
)

// oldWAL writes n records as old Pebble's WAL writer does (recyclable
// chunks of log logNum), some of them spanning blocks, and returns the
// file's bytes.
func oldWAL(t *testing.T, logNum uint32, n int) []byte {
	t.Helper()
	return oldWALOf(t, logNum, n, record)
}

// oldWALOf is oldWAL with record i rec(i).
func oldWALOf(t *testing.T, logNum uint32, n int, rec func(int) []byte) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "wal")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// NewLogWriter takes old Pebble's internal FileNum type: converted
	// to it by reflection.
	fn := reflect.ValueOf(oldrecord.NewLogWriter)
	w := fn.Call([]reflect.Value{reflect.ValueOf(f), reflect.ValueOf(uint64(logNum)).Convert(fn.Type().In(1))})[0].
		Interface().(*oldrecord.LogWriter)
	for i := range n {
		if _, err := w.WriteRecord(rec(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// record i of a test log: a few bytes to 40 KiB, so some span blocks.
func record(i int) []byte {
	return bytes.Repeat([]byte{byte('a' + i%26)}, 10+(i*997)%(40<<10))
}

// A MANIFEST's chunks: the legacy format, written by old Pebble's Writer.
func oldManifest(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := oldrecord.NewWriter(&buf)
	for i := range n {
		if _, err := w.WriteRecord(record(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCheckLogReadsWhatOldPebbleWrites(t *testing.T) {
	for name, b := range map[string]struct {
		b      []byte
		logNum uint32
	}{"wal": {oldWAL(t, 7, 60), 7}, "manifest": {oldManifest(t, 60), 0}} {
		var got []int
		c, err := checkLog(b.b, b.logNum, func(rec []byte) error { got = append(got, len(rec)); return nil })
		if err != nil || c.Records != 60 || c.Torn {
			t.Fatalf("%s: %+v %v, want 60 records", name, c, err)
		}
		for i, n := range got {
			if n != len(record(i)) {
				t.Fatalf("%s: record %d has %d bytes, want %d", name, i, n, len(record(i)))
			}
		}
	}
}

// A flip in the middle is corruption; a torn tail, stale chunks of an
// earlier log after the end (a recycled file), zeros, or a tail whose
// pages reached the disk out of order (one page unwritten, later ones
// written) are not.
func TestCheckLogTellsCorruptionFromATornTail(t *testing.T) {
	wal := oldWAL(t, 7, 60)
	c, _ := checkLog(wal, 7, nil)
	for _, tc := range []struct {
		name    string
		mangle  func(b []byte) []byte
		corrupt bool
		records int
	}{
		{"flip in the middle", func(b []byte) []byte { b[c.End/2] ^= 4; return b }, true, 0},
		{"flip in a header", func(b []byte) []byte { b[0] ^= 1; return b }, true, 0},
		{"cut in the last record", func(b []byte) []byte { return b[:c.End-5] }, false, 59},
		{"zeros after the end", func(b []byte) []byte { return append(b[:c.End], make([]byte, 40000)...) }, false, 60},
		{"a recycled file's stale chunks", func(b []byte) []byte {
			return append(b[:c.End], oldWAL(t, 3, 10)[c.End%logBlockSize:]...)
		}, false, 60},
		{"the last chunk garbled", func(b []byte) []byte { b[c.End-3] ^= 1; return b }, false, 59},
		// A power loss that wrote the tail's pages out of order: one page
		// never reached the disk, later ones did.
		{"a page of the tail unwritten (zeros)", func(b []byte) []byte {
			p := (c.End*3/4)/pageSize*pageSize - pageSize
			clear(b[p : p+pageSize])
			return b
		}, false, -1},
		{"a page of the tail unwritten (a recycled file's old chunks)", func(b []byte) []byte {
			p := (c.End*3/4)/pageSize*pageSize - pageSize
			small := func(i int) []byte { return bytes.Repeat([]byte{byte('A' + i%26)}, 100) }
			copy(b[p:p+pageSize], oldWALOf(t, 3, 20000, small)[p:p+pageSize])
			return b
		}, false, -1},
	} {
		b := tc.mangle(bytes.Clone(wal))
		got, err := checkLog(b, 7, nil)
		if tc.corrupt {
			if err == nil || !strings.Contains(err.Error(), "not a torn write") {
				t.Errorf("%s: %+v %v, want corruption", tc.name, got, err)
			}
			continue
		}
		if tc.records < 0 && err == nil && got.Torn && got.Records > 0 && got.Records < 60 {
			continue // cut at the unwritten page: how many records precede it is the page's place
		}
		if err != nil || got.Records != tc.records {
			t.Errorf("%s: %+v %v, want %d records and no corruption", tc.name, got, err, tc.records)
		}
	}
	m := oldManifest(t, 10)
	m[100] ^= 0x40
	if _, err := checkLog(m, 0, nil); err == nil {
		t.Error("a MANIFEST flipped in its first record reads clean")
	}
}

func TestEditLogNumber(t *testing.T) {
	// comparer "x", log number 12, next file 20: as Pebble encodes it.
	rec := []byte{1, 1, 'x', 2, 12, 3, 20}
	if n, ok := editLogNumber(rec); !ok || n != 12 {
		t.Fatalf("editLogNumber = %d %v", n, ok)
	}
	if _, ok := editLogNumber([]byte{6, 0, 5}); ok {
		t.Fatal("an edit without a log number has one")
	}
}

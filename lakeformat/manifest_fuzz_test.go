package lakeformat

import (
	"errors"
	"os"
	"reflect"
	"testing"
)

// FuzzDecodeManifest checks that no input makes DecodeManifest panic, that
// every refusal wraps ErrBadManifest, and that whatever it accepts encodes
// and decodes back to the same value.
func FuzzDecodeManifest(f *testing.F) {
	if b, err := os.ReadFile("testdata/manifest-spec-example.json"); err == nil {
		f.Add(b)
	}
	fuzzDecode(f, DecodeManifest, ErrBadManifest, perPartitionManifest(), emptyManifest())
}

// FuzzDecodeCheckpoint checks that no input makes DecodeCheckpoint panic,
// that every refusal wraps ErrBadCheckpoint, and that whatever it accepts
// encodes and decodes back to the same value.
func FuzzDecodeCheckpoint(f *testing.F) {
	fuzzDecode(f, DecodeCheckpoint, ErrBadCheckpoint, sampleCheckpoint(), &Checkpoint{K: 1})
}

// document is a sidecar's value: a *Manifest or a *Checkpoint.
type document interface{ Encode() ([]byte, error) }

// fuzzDecode fuzzes a document's decoder from the encodings of seeds: no
// input makes decode panic, every refusal wraps bad, and whatever decode
// accepts round-trips (assertRoundTrip).
func fuzzDecode[T document](f *testing.F, decode func([]byte) (T, error), bad error, seeds ...T) {
	for _, v := range seeds {
		b, err := v.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := decode(b)
		if err != nil {
			if !errors.Is(err, bad) {
				t.Fatalf("error %v does not wrap %v", err, bad)
			}
			return
		}
		assertRoundTrip(t, v, decode)
	})
}

// assertRoundTrip encodes v and fails t unless decode reads the encoding
// back as v.
func assertRoundTrip[T document](t testing.TB, v T, decode func([]byte) (T, error)) {
	t.Helper()
	b, err := v.Encode()
	if err != nil {
		t.Fatalf("Encode of %+v: %v", v, err)
	}
	got, err := decode(b)
	if err != nil {
		t.Fatalf("decode of Encode: %v\n%s", err, b)
	}
	if !reflect.DeepEqual(got, v) {
		t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, v)
	}
}

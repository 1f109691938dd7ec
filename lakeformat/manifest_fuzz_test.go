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
	for _, m := range []*Manifest{perPartitionManifest(), emptyManifest()} {
		b, err := m.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeManifest(b)
		if err != nil {
			if !errors.Is(err, ErrBadManifest) {
				t.Fatalf("error %v does not wrap ErrBadManifest", err)
			}
			return
		}
		enc, err := m.Encode()
		if err != nil {
			t.Fatalf("Encode of a decoded manifest: %v", err)
		}
		again, err := DecodeManifest(enc)
		if err != nil {
			t.Fatalf("DecodeManifest of Encode: %v\n%s", err, enc)
		}
		if !reflect.DeepEqual(again, m) {
			t.Fatalf("round trip differs:\n got %+v\nwant %+v", again, m)
		}
	})
}

// FuzzDecodeCheckpoint checks that no input makes DecodeCheckpoint panic,
// that every refusal wraps ErrBadCheckpoint, and that whatever it accepts
// encodes and decodes back to the same value.
func FuzzDecodeCheckpoint(f *testing.F) {
	for _, c := range []*Checkpoint{sampleCheckpoint(), {K: 1}} {
		b, err := c.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeCheckpoint(b)
		if err != nil {
			if !errors.Is(err, ErrBadCheckpoint) {
				t.Fatalf("error %v does not wrap ErrBadCheckpoint", err)
			}
			return
		}
		enc, err := c.Encode()
		if err != nil {
			t.Fatalf("Encode of a decoded checkpoint: %v", err)
		}
		again, err := DecodeCheckpoint(enc)
		if err != nil {
			t.Fatalf("DecodeCheckpoint of Encode: %v", err)
		}
		if !reflect.DeepEqual(again, c) {
			t.Fatalf("round trip differs:\n got %+v\nwant %+v", again, c)
		}
	})
}

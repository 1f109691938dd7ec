package seal

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func key(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

func TestSealOpens(t *testing.T) {
	s, err := New(key(1))
	if err != nil {
		t.Fatal(err)
	}
	payload := []byte(`{"total":42.00}`)
	a, err := s.Seal(payload)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Seal(payload)
	if !Sealed(a) || bytes.Contains(a, payload) || bytes.Equal(a, b) {
		t.Fatalf("sealed %q (twice: %q): must hide the payload under a fresh nonce", a, b)
	}
	if got, ok := s.Open(a); !ok || !bytes.Equal(got, payload) {
		t.Fatalf("open: %q %v", got, ok)
	}
}

func TestOpenPassesPlainPayloadsAndQuotesWhatItCannotOpen(t *testing.T) {
	s, _ := New(key(1))
	other, _ := New(key(2))
	if got, ok := s.Open([]byte(`[1,2]`)); !ok || string(got) != `[1,2]` {
		t.Fatalf("plain payload: %q", got)
	}
	sealed, _ := s.Seal([]byte(`"secret"`))
	damaged := append(bytes.Clone(sealed[:len(sealed)-1]), sealed[len(sealed)-1]^1)
	var none *Sealer
	for name, c := range map[string]struct {
		s *Sealer
		b []byte
	}{"another key": {other, sealed}, "no key": {none, sealed}, "damaged": {s, damaged}, "truncated": {s, sealed[:6]}} {
		got, ok := c.s.Open(c.b)
		var str string
		if ok || json.Unmarshal(got, &str) != nil || strings.Contains(string(got), "secret") {
			t.Errorf("%s: %q %v: want a JSON string of the sealed bytes", name, got, ok)
		}
	}
	if _, err := none.Seal([]byte(`1`)); err != ErrNoKey {
		t.Fatalf("seal without a key: %v", err)
	}
}

func TestParseKey(t *testing.T) {
	hexKey := strings.Repeat("ab", 32)
	for _, s := range []string{hexKey, "q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s="} {
		if k, err := ParseKey(s); err != nil || len(k) != 32 {
			t.Errorf("ParseKey(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "abc", strings.Repeat("ab", 31), "not base64!"} {
		if _, err := ParseKey(s); err == nil {
			t.Errorf("ParseKey(%q) took it", s)
		}
	}
}

// FuzzOpen: Open never panics and always gives JSON for sealed input.
func FuzzOpen(f *testing.F) {
	s, _ := New(key(3))
	sealed, _ := s.Seal([]byte(`{"a":1}`))
	f.Add(sealed)
	f.Add([]byte("\x00qs\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := s.Open(b)
		if Sealed(b) && !ok && !json.Valid(got) {
			t.Fatalf("Open(%q) = %q, not JSON", b, got)
		}
	})
}

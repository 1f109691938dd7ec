package lakeformat

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestEscapeName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"orders", "orders"},
		{"A-Z_a.z-09", "A-Z_a.z-09"},
		{"a b/c", "a%20b%2Fc"},
		{"..", ".."},
		{"%", "%25"},
		{"%2F", "%252F"},
		{"a=b", "a%3Db"},
		{"\x00\x1f\x7f\xff", "%00%1F%7F%FF"},
		{"é", "%C3%A9"},
		{"日本", "%E6%97%A5%E6%9C%AC"},
		{"😀", "%F0%9F%98%80"},
		{"x~y+z:w", "x%7Ey%2Bz%3Aw"},
	} {
		if got := EscapeName(tc.in); got != tc.want {
			t.Errorf("EscapeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
		got, err := UnescapeName(tc.want)
		if err != nil || got != tc.in {
			t.Errorf("UnescapeName(%q) = %q, %v; want %q", tc.want, got, err, tc.in)
		}
	}
}

func TestEscapeNameEveryByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		s := string([]byte{'x', byte(c), 'y'})
		e := EscapeName(s)
		if strings.ContainsAny(e, "/ ") {
			t.Errorf("EscapeName(%q) = %q holds '/' or ' '", s, e)
		}
		if got, err := UnescapeName(e); err != nil || got != s {
			t.Errorf("UnescapeName(%q) = %q, %v; want %q", e, got, err, s)
		}
	}
}

func TestEscapeNameFastPath(t *testing.T) {
	s := strings.Repeat("orders-2026_v1.", 4)
	if n := testing.AllocsPerRun(100, func() { _ = EscapeName(s) }); n != 0 {
		t.Errorf("EscapeName of a plain name allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = UnescapeName(s) }); n != 0 {
		t.Errorf("UnescapeName of a plain name allocates %v times", n)
	}
}

func TestUnescapeNameRefuses(t *testing.T) {
	for _, in := range []string{
		"a b",    // byte that should be escaped
		"a/b",    // slash
		"a%2fb",  // lowercase hex
		"a%2",    // truncated
		"a%",     // truncated
		"%",      // truncated
		"a%G0",   // non-hex
		"a%-1",   // non-hex
		"a%41",   // 'A' needs no escaping
		"a%2E",   // '.' needs no escaping
		"a%5F",   // '_' needs no escaping
		"a%2D",   // '-' needs no escaping
		"é",      // raw non-ASCII
		"a\x00",  // raw control byte
		"a%%20",  // '%' followed by '%'
		"a%20%7", // second escape truncated
	} {
		got, err := UnescapeName(in)
		if !errors.Is(err, ErrBadKey) {
			t.Errorf("UnescapeName(%q) = %q, %v; want ErrBadKey", in, got, err)
			continue
		}
		if q := strconv.Quote(in); !strings.Contains(err.Error(), q) {
			t.Errorf("UnescapeName(%q): error %q does not name %s", in, err, q)
		}
	}
}

func FuzzEscapeName(f *testing.F) {
	for _, s := range []string{"", "a b/c", "%41", "é", "..", "%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := EscapeName(s)
		if got, err := UnescapeName(e); err != nil || got != s {
			t.Fatalf("UnescapeName(EscapeName(%q)) = %q, %v", s, got, err)
		}
		if u, err := UnescapeName(s); err == nil && EscapeName(u) != s {
			t.Fatalf("EscapeName(UnescapeName(%q)) = %q", s, EscapeName(u))
		}
	})
}

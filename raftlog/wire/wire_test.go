package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

var errTest = errors.New("test: corrupt")

func TestDecoderStrict(t *testing.T) {
	b := binary.AppendUvarint(nil, 300)
	b = binary.AppendVarint(b, -5)
	b = AppendString(b, "héllo")
	d := NewDecoder(b, errTest)
	if d.Uvarint() != 300 || d.Varint() != -5 || string(d.Bytes()) != "héllo" || d.Err != nil || len(d.B) != 0 {
		t.Fatalf("round trip: %v, %q left", d.Err, d.B)
	}
	// 0x80 0x00 is 0 padded to two bytes: one value, one encoding.
	for _, padded := range [][]byte{{0x80, 0x00}, {0x81, 0x80, 0x00}} {
		d := NewDecoder(padded, errTest)
		d.Uvarint()
		if !errors.Is(d.Err, errTest) {
			t.Errorf("uvarint % x read without error", padded)
		}
	}
	d = NewDecoder([]byte{5, 'a'}, errTest)
	if d.Bytes() != nil || !errors.Is(d.Err, errTest) || d.Byte() != 0 {
		t.Errorf("a length past the end read: %v", d.Err)
	}
	d = NewDecoder(binary.AppendUvarint(nil, 1000), errTest)
	if d.Count(4) != 0 || d.Err == nil {
		t.Errorf("a count the bytes cannot hold passed")
	}
}

func TestPrefixEnd(t *testing.T) {
	for _, c := range []struct{ in, want []byte }{
		{[]byte("ab"), []byte("ac")}, {[]byte{'a', 0xff}, []byte("b")}, {[]byte{0xff, 0xff}, nil}, {[]byte{}, nil},
	} {
		if got := PrefixEnd(c.in); !bytes.Equal(got, c.want) {
			t.Errorf("PrefixEnd(% x) = % x, want % x", c.in, got, c.want)
		}
	}
}

// FuzzDecoder: anything Uvarint, Varint and Bytes accept encodes back to
// the same bytes.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte{0x80, 0x00})
	f.Add(AppendString(binary.AppendVarint(nil, -7), "x"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder(b, errTest)
		u, v, s := d.Uvarint(), d.Varint(), d.Bytes()
		if d.Err != nil {
			return
		}
		again := AppendString(binary.AppendVarint(binary.AppendUvarint(nil, u), v), string(s))
		if !bytes.Equal(again, b[:len(b)-len(d.B)]) {
			t.Fatalf("% x decoded to %d %d %q, which encode as % x", b, u, v, s, again)
		}
	})
}

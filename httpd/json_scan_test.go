package httpd

import (
	"encoding/binary"
	"testing"
)

// TestStrSpecial8: the eight-byte test finds a special byte of a string
// ('"', '\\', a control character) at every place, among any others, and
// nothing else.
func TestStrSpecial8(t *testing.T) {
	fill := []byte{'a', ' ', 0x7f, 0x80, 0xff, '!', '#', '[', ']'}
	for _, f := range fill {
		for at := 0; at < 8; at++ {
			for c := 0; c < 256; c++ {
				var w [8]byte
				for i := range w {
					w[i] = f
				}
				w[at] = byte(c)
				want := strClass[c] != 0 || strClass[f] != 0
				if got := strSpecial8(binary.LittleEndian.Uint64(w[:])); got != want {
					t.Fatalf("strSpecial8(% x) = %v, want %v", w, got, want)
				}
			}
		}
	}
}

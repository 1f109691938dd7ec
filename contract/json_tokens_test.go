package contract

import "testing"

// TestJSONTokens: the token readers stop where the grammar says and refuse
// what is not their token without moving.
func TestJSONTokens(t *testing.T) {
	spaces := []struct {
		in   string
		i    int
		want int
	}{
		{"", 0, 0}, {"x", 0, 0}, {" \t\n\rx", 0, 4}, {"a  ", 1, 3}, {"\f", 0, 0},
	}
	for _, c := range spaces {
		if got := JSONSpaceEnd([]byte(c.in), c.i); got != c.want {
			t.Errorf("JSONSpaceEnd(%q, %d) = %d, want %d", c.in, c.i, got, c.want)
		}
	}
	literals := []struct {
		in   string
		i    int
		want int
		ok   bool
	}{
		{"true", 0, 4, true}, {"[false]", 1, 6, true}, {"null,", 0, 4, true},
		{"tru", 0, 0, false}, {"True", 0, 0, false}, {"nul", 0, 0, false}, {"x", 0, 0, false}, {"", 0, 0, false},
	}
	for _, c := range literals {
		if got, ok := JSONLiteralEnd([]byte(c.in), c.i); got != c.want || ok != c.ok {
			t.Errorf("JSONLiteralEnd(%q, %d) = %d, %v, want %d, %v", c.in, c.i, got, ok, c.want, c.ok)
		}
	}
	hexes := []struct {
		in   string
		want rune
	}{
		{"00e9", 0xe9}, {"D83Dx", 0xd83d}, {"dfFF", 0xdfff}, {"12g4", -1}, {"123", -1}, {"", -1},
	}
	for _, c := range hexes {
		if got := JSONHex4([]byte(c.in)); got != c.want {
			t.Errorf("JSONHex4(%q) = %#x, want %#x", c.in, got, c.want)
		}
	}
}

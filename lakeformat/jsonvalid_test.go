package lakeformat

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestValidJSON(t *testing.T) {
	cases := map[string]bool{
		`42.00`: true, `-0`: true, `0.5e-3`: true, `{"a":[1,{"b":null}],"c":"\u00e9"}`: true, " \n{ } \r\n": true,
		`01`: false, `1.`: false, `.5`: false, `+1`: false, `{"a":1,}`: false, `[1,]`: false, `{"a"}`: false,
		`"\x"`: false, "\"\x01\"": false, "\"\xff\"": false, `nul`: false, ``: false, ` `: false, `1 2`: false,
		`"\ud800"`: true, "\"\xed\xa0\x80\"": false, `{"a":tru}`: false, `[`: false, `"abc`: false,
		strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth):               true,
		strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1):           false,
		strings.Repeat(`{"a":`, maxJSONDepth+1) + "1" + strings.Repeat("}", maxJSONDepth+1): false,
	}
	for in, want := range cases {
		if got := validJSON([]byte(in)); got != want {
			t.Errorf("validJSON(%.40q) = %v, want %v", in, got, want)
		}
		if oracle := json.Valid([]byte(in)) && utf8.ValidString(in); oracle != want {
			t.Errorf("the oracle disagrees with the table on %.40q", in)
		}
	}
}

// FuzzValidJSON: validJSON is exactly json.Valid && utf8.Valid.
func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,"x\u00e9"]}`, `[]`, `"\ud83d\ude00"`, "\"\xf0\x9f\x98\x80\"", `1e`, "{\n}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		if got, want := validJSON(p), json.Valid(p) && utf8.Valid(p); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid && utf8.Valid = %v", p, got, want)
		}
	})
}

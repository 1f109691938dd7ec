package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckJSON(t *testing.T) {
	ok := []string{
		`0`, `-0`, `1.5e-3`, `true`, ` null `, `"a"`, `"\ud83d\ude00"`, `"\uFFFD"`, `"é"`, `[]`, `{}`,
		`{"a":[1,{"b":null}],"c":"\n\"\\\/\b\f\r\t"}`, "\t[1, 2 ,3]\r\n",
	}
	for _, s := range ok {
		if err := CheckJSON([]byte(s), MaxJSONDepth); err != nil {
			t.Errorf("CheckJSON(%q) = %v, want nil", s, err)
		}
	}
	bad := []struct {
		in      string
		problem JSONProblem
		path    string
	}{
		{``, JSONSyntax, ""},
		{`01`, JSONSyntax, ""},
		{`[1,]`, JSONSyntax, "[1]"},
		{`{"a":1,}`, JSONSyntax, ""},
		{`{"a" 1}`, JSONSyntax, ""},
		{`"a` + "\x01" + `"`, JSONSyntax, ""},
		{`"\x"`, JSONSyntax, ""},
		{`1 2`, JSONSyntax, ""},
		{`tru`, JSONSyntax, ""},
		{`-`, JSONSyntax, ""},
		{`1.`, JSONSyntax, ""},
		{`1e`, JSONSyntax, ""},
		{"{\"items\":[{\"payload\":\"a\xffb\"}]}", JSONInvalidUTF8, "items[0].payload"},
		{`{"items":[{},{"transactionId":"x\ud800"}]}`, JSONInvalidUTF8, "items[1].transactionId"},
		{`"\udc00"`, JSONInvalidUTF8, ""},
		{`"\ud800\u0041"`, JSONInvalidUTF8, ""},
		{"\"\xed\xa0\x80\"", JSONInvalidUTF8, ""}, // a surrogate in UTF-8 bytes
		{"{\"k\xff\":1}", JSONInvalidUTF8, ""},
		{`{"a b":{"c":[` + "\"\xc3\"" + `]}}`, JSONInvalidUTF8, `["a b"].c[0]`},
	}
	for _, c := range bad {
		err := CheckJSON([]byte(c.in), MaxJSONDepth)
		var je *JSONError
		if !errors.As(err, &je) {
			t.Errorf("CheckJSON(%q) = %v, want a *JSONError", c.in, err)
			continue
		}
		if je.Problem != c.problem || je.Path != c.path {
			t.Errorf("CheckJSON(%q) = problem %d path %q (%v), want %d %q", c.in, je.Problem, je.Path, err, c.problem, c.path)
		}
	}
}

func TestCheckJSONDepth(t *testing.T) {
	deep := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	if err := CheckJSON(deep(MaxJSONDepth), MaxJSONDepth); err != nil {
		t.Fatalf("depth %d: %v", MaxJSONDepth, err)
	}
	err := CheckJSON(deep(100000), MaxJSONDepth)
	var je *JSONError
	if !errors.As(err, &je) || je.Problem != JSONTooDeep || je.Offset != MaxJSONDepth {
		t.Fatalf("depth 100000: %v", err)
	}
	want := "more than 128 deep at byte 128, at most 128"
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}
}

// FuzzCheckJSON holds CheckJSON to encoding/json: it accepts exactly the
// texts json.Valid accepts that are valid UTF-8, hold no escaped lone
// surrogate and nest no deeper than the limit; and an accepted text's
// strings decode without a replaced byte.
func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":"c"}]}`, `"\ud800"`, `"\ud83d\ude00"`, "\"\xff\"", `[[[[]]]]`, `-1.5e+3`,
		`{"items":[{"queue":"q","payload":{"x":42.00}}]}`, `"\u00e9\uFFFD"`, `nul`, `[1,]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		const limit = 8
		err := CheckJSON(b, limit)
		want := json.Valid(b) && utf8.Valid(b) && !hasLoneSurrogate(b) && depthOf(b) <= limit
		if (err == nil) != want {
			t.Fatalf("CheckJSON(%q) = %v, want accepted %v", b, err, want)
		}
		if err != nil {
			return
		}
		var v any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber() // 1E700 is JSON, beyond a float64
		if err := d.Decode(&v); err != nil {
			t.Fatalf("accepted %q, but encoding/json: %v", b, err)
		}
		if strings.Contains(render(v), "\uFFFD") && !strings.Contains(string(b), "\uFFFD") && !strings.Contains(strings.ToLower(string(b)), `\ufffd`) {
			t.Fatalf("accepted %q, whose decoding holds a replaced byte", b)
		}
	})
}

// depthOf counts the deepest nesting of arrays and objects of a valid
// JSON text, outside strings.
func depthOf(b []byte) int {
	depth, most, in := 0, 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case c == '[' || c == '{':
			depth++
			most = max(most, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return most
}

// hasLoneSurrogate reports whether a valid JSON text escapes a surrogate
// without its pair.
func hasLoneSurrogate(b []byte) bool {
	s := string(b)
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if i+1 < len(s) && s[i+1] != 'u' {
			i++
			continue
		}
		if i+6 > len(s) {
			return false
		}
		r := hexRune(s[i+2 : i+6])
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			if i+12 > len(s) || s[i+6] != '\\' || s[i+7] != 'u' {
				return true
			}
			if lo := hexRune(s[i+8 : i+12]); lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
		default:
			i += 5
		}
	}
	return false
}

func hexRune(h string) rune {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | (c - '0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | (c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | (c - 'A' + 10)
		default:
			return -1
		}
	}
	return r
}

// render joins every string of a decoded value, names and values.
func render(v any) string {
	var s strings.Builder
	collect(&s, v)
	return s.String()
}

func collect(s *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		s.WriteString(x)
	case []any:
		for _, e := range x {
			collect(s, e)
		}
	case map[string]any:
		for k, e := range x {
			s.WriteString(k)
			collect(s, e)
		}
	}
}

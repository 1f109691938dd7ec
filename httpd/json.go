package httpd

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"
)

// object is a decoded JSON object whose members are still raw: field
// names match exactly (encoding/json's structs would match any case), and
// a member's bytes are a copy of the request's, so payloads stay as sent.
type object map[string]json.RawMessage

// readBody reads the request body, at most max bytes. Errors are *Error:
// 413 payload_too_large past max, 400 bad_body when reading fails.
func readBody(r *http.Request, max int64) ([]byte, error) {
	if r.ContentLength > max {
		return nil, tooLarge(r.ContentLength, max)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		return nil, badBody("reading the body: %v", err)
	}
	if int64(len(body)) > max {
		return nil, tooLarge(-1, max)
	}
	return body, nil
}

// parseJSON checks that body is one JSON value. Malformed JSON is 400
// bad_body.
func parseJSON(body []byte) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return badBody("the body is empty")
	}
	if !json.Valid(body) {
		return badBody("the body is not JSON")
	}
	return nil
}

// firstByte is the first byte of raw past white space, 0 when none.
func firstByte(raw []byte) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
		default:
			return c
		}
	}
	return 0
}

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool { return raw == nil || firstByte(raw) == 'n' }

// asObject decodes raw, which must be valid JSON, as an object; name
// says which field it was for the error.
func asObject(raw json.RawMessage, name string) (object, error) {
	if firstByte(raw) != '{' {
		return nil, badRequest("%s must be an object", name)
	}
	var o object
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, badRequest("%s must be an object", name)
	}
	return o, nil
}

// asArray decodes raw, which must be valid JSON, as an array.
func asArray(raw json.RawMessage, name string) ([]json.RawMessage, error) {
	if firstByte(raw) != '[' {
		return nil, badRequest("%s must be an array", name)
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, badRequest("%s must be an array", name)
	}
	return a, nil
}

// str reads member k as a string; absent and null give ok false.
func (o object) str(k, path string) (s string, ok bool, err error) {
	raw := o[k]
	if isNull(raw) {
		return "", false, nil
	}
	if firstByte(raw) != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false, badRequest("%s must be a string", path)
	}
	return s, true, nil
}

// boolean reads member k as a boolean; absent and null give ok false.
func (o object) boolean(k, path string) (b, ok bool, err error) {
	raw := o[k]
	if isNull(raw) {
		return false, false, nil
	}
	if c := firstByte(raw); c != 't' && c != 'f' {
		return false, false, badRequest("%s must be a boolean", path)
	}
	return firstByte(raw) == 't', true, nil
}

// integer reads member k as an integer; absent and null give ok false.
func (o object) integer(k, path string) (n int64, ok bool, err error) {
	raw := o[k]
	if isNull(raw) {
		return 0, false, nil
	}
	n, err = parseInteger(raw)
	if err != nil {
		return 0, false, badRequest("%s must be an integer", path)
	}
	return n, true, nil
}

// errNotInteger: the JSON value is not a number of integral value.
var errNotInteger = errors.New("not an integer")

// parseInteger reads a JSON number of integral value (3, -2, 3.0, 1e3).
// Values beyond int64 saturate at its bounds: every field that takes an
// integer clamps or range-checks it, so a saturated value meets the
// same fate as the exact one.
func parseInteger(raw []byte) (int64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, errNotInteger
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err == nil {
		return n, nil
	}
	f, ferr := strconv.ParseFloat(string(raw), 64)
	if ferr != nil && !errors.Is(ferr, strconv.ErrRange) {
		return 0, errNotInteger
	}
	switch {
	case math.IsInf(f, 1) || f >= math.MaxInt64:
		return math.MaxInt64, nil
	case math.IsInf(f, -1) || f <= math.MinInt64:
		return math.MinInt64, nil
	case f != math.Trunc(f):
		return 0, errNotInteger
	}
	return int64(f), nil
}

// clamp bounds n to lo..hi.
func clamp(n, lo, hi int64) int64 { return min(max(n, lo), hi) }

// encodeJSON marshals v without escaping HTML characters.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeJSON answers status with v, a value of httpd's own, as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := encodeJSON(v)
	if err != nil {
		// INVARIANT: httpd's answer types always marshal.
		panic("httpd: marshal answer: " + err.Error())
	}
	writeRaw(w, status, b)
}

// writeRaw answers status with body, which is JSON already.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

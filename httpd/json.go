package httpd

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/queen-mq/queen-go/contract"
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

// parseJSON checks that body is one JSON value of valid UTF-8, nesting at
// most contract.MaxJSONDepth deep. Malformed JSON, an empty body and one
// too deep are 400 bad_body; invalid UTF-8 (a lone surrogate's escape
// too) is 400 bad_request naming where it is ("items[3].payload"). Once it
// passes, a string of the body decodes to exactly its bytes: none is
// replaced with U+FFFD, so distinct inputs stay distinct.
func parseJSON(body []byte) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return badBody("the body is empty")
	}
	err := contract.CheckJSON(body, contract.MaxJSONDepth)
	var je *contract.JSONError
	if !errors.As(err, &je) {
		return err
	}
	switch je.Problem {
	case contract.JSONInvalidUTF8:
		if je.Path == "" {
			return refusal("the body: " + je.Error())
		}
		return refusal(je.Error())
	case contract.JSONTooDeep:
		return &Error{Status: http.StatusBadRequest, Code: CodeBadBody, Message: "the body is too deep: " + je.Error()}
	}
	return &Error{Status: http.StatusBadRequest, Code: CodeBadBody, Message: "the body is not JSON: " + je.Error()}
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

// optionalArray is asArray of raw, or none when raw is absent or null.
func optionalArray(raw json.RawMessage, name string) ([]json.RawMessage, error) {
	if isNull(raw) {
		return nil, nil
	}
	return asArray(raw, name)
}

// arrayAtMost is asArray of an array of at most max elements: past it,
// 400 bad_request of tooMany, a format of the count and max.
func arrayAtMost(raw json.RawMessage, name string, max int, tooMany string) ([]json.RawMessage, error) {
	list, err := asArray(raw, name)
	if err == nil && len(list) > max {
		return nil, badRequest(tooMany, len(list), max)
	}
	return list, err
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

// integer reads member k as an integer of r's range (clamped into it
// when r.Clamp), def when absent or null; ok says it was given. A value
// that is no integer, or beyond int64, or outside a range that does not
// clamp is 400 bad_request naming the field and the range.
func (o object) integer(k, path string, r *contract.Range, def int64) (n int64, ok bool, err error) {
	raw := o[k]
	if isNull(raw) {
		return def, false, nil
	}
	n, err = r.Parse(path, raw)
	return n, err == nil, contractError(err)
}

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

// writeRaw answers status with body, which is JSON already. Every JSON
// answer ends with a line break, so that answers printed one after another
// (curl in a shell) stay one per line.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	nl := len(body) == 0 || body[len(body)-1] != '\n'
	n := len(body)
	if nl {
		n++
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(n))
	w.WriteHeader(status)
	_, _ = w.Write(body)
	if nl {
		_, _ = w.Write(newline)
	}
}

var newline = []byte{'\n'}

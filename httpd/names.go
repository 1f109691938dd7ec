package httpd

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/queen-mq/queen-go/contract"
)

// CodeNameTooLong is the code of a name over its bound (API.md §0).
const CodeNameTooLong = "name_too_long"

// contractError maps a refusal of the contract module to its answer: a
// name over its bound as the name's TooLong says (413 name_too_long for
// most), any other refused name, number or option 400 bad_request; the KV
// names in the KV shape. Other errors pass through.
func contractError(err error) error {
	var ne *contract.NameError
	if errors.As(err, &ne) {
		return nameError(ne)
	}
	var re *contract.RangeError
	var oe *contract.OptionError
	if errors.As(err, &re) || errors.As(err, &oe) {
		return refusal(err.Error())
	}
	return err
}

// refusal is a 400 bad_request of a message made already (the contract's
// errors quote at most contract.ClipBytes of a value themselves).
func refusal(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: msg}
}

func nameError(ne *contract.NameError) *Error {
	msg := ne.Error()
	switch ne.Name.Rule {
	case contract.RuleKVNamespace:
		return &Error{Status: http.StatusBadRequest, Code: CodeKVBadRequest, Reason: ReasonKVBadNamespace, Detail: msg}
	case contract.RuleKVKey:
		if ne.TooLong() {
			return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodePayloadTooLarge, Reason: ReasonKVKeyTooLarge, Detail: msg}
		}
		return &Error{Status: http.StatusBadRequest, Code: CodeKVBadRequest, Reason: ReasonKVBadKey, Detail: msg}
	}
	if ne.TooLong() && ne.Name.TooLong == contract.TooLongName {
		return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeNameTooLong, Message: msg}
	}
	return refusal(msg)
}

// name reads member k as a name of kind n: absent, null and "" give "",
// which the caller defaults or refuses. A string that n refuses is the
// contract's answer.
func (o object) name(k, path string, n *contract.Name) (string, error) {
	s, _, err := o.str(k, path)
	if err != nil || s == "" {
		return "", err
	}
	return s, contractError(n.Check(path, s))
}

// name reads query parameter k as a name of kind n ("" when absent).
func (q query) name(k string, n *contract.Name) (string, error) {
	s := q.get(k)
	if s == "" {
		return "", nil
	}
	return s, contractError(n.Check(k, s))
}

// pathParam reads the path parameter param, unescaped (urlParam), as a
// name of kind n. An empty value is 400, and so is what n refuses.
func pathParam(r *http.Request, param string, n *contract.Name) (string, error) {
	v, ok := urlParam(r, param)
	if !ok {
		return "", badRequest("the %s %q is not a valid path segment", param, v)
	}
	if v == "" {
		return "", badRequest("the %s is empty", param)
	}
	return v, contractError(n.Check(param, v))
}

// urlParam reads the path parameter param ("*": the rest of the path)
// unescaped: when the URL has an escaped form that differs from the
// default one (a %2F inside a segment), chi routes on that form and hands
// its segments back still escaped. ok is false when the value is not a
// valid escaped path; v is then the value as it came.
func urlParam(r *http.Request, param string) (v string, ok bool) {
	v = chi.URLParam(r, param)
	if r.URL.RawPath == "" {
		return v, true
	}
	u, err := url.PathUnescape(v)
	if err != nil {
		return v, false
	}
	return u, true
}

// clipped quotes a value in an error message (contract.Clipped).
type clipped = contract.Clipped

// clipArgs clips the string arguments of an error message
// (contract.ClipArgs).
func clipArgs(args []any) []any { return contract.ClipArgs(args) }

// maxMessageBytes bounds the message (or detail) of an error answer: with
// the envelope, an error body stays under 1 KiB whatever the input was.
const maxMessageBytes = 768

// capMessage cuts s to maxMessageBytes on a character boundary.
func capMessage(s string) string {
	if len(s) <= maxMessageBytes {
		return s
	}
	cut := maxMessageBytes
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// required reads member k of the object at path (field) as a name of
// kind n, which must be given: absent, null and "" are 400 "<path>.<k>
// is required".
func (o object) required(k, path string, n *contract.Name) (string, error) {
	at := field(path, k)
	s, err := o.name(k, at, n)
	if err == nil && s == "" {
		err = badRequest("%s is required", at)
	}
	return s, err
}

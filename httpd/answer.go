package httpd

import (
	"fmt"
	"net/http"

	"github.com/queen-mq/queen-go/contract"
)

// The mechanics most routes share, so that a route file reads as its
// contract: what the route reads (a read function), what it asks of the
// broker and what it answers (its own function), and its refusals.

// rawJSON is an answer rendered by hand (json_append.go), written as is.
type rawJSON []byte

// reply adapts a route that returns its answer: a rawJSON is written as
// it is, any other value marshalled (writeJSON), with status. The answer
// is ignored when err is not nil: err is answered instead (writeError).
func reply[A any](status int, f func(r *http.Request) (A, error)) http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		a, err := f(r)
		if err != nil {
			return err
		}
		if b, ok := any(a).(rawJSON); ok {
			writeRaw(w, status, b)
		} else {
			writeJSON(w, status, a)
		}
		return nil
	})
}

// route is reply of a route that reads its request with read, then
// answers with answer: the shape of most routes (read, ask the broker,
// answer).
func route[Q, A any](status int, read func(*http.Request) (Q, error), answer func(r *http.Request, q Q) (A, error)) http.Handler {
	return reply(status, func(r *http.Request) (A, error) {
		q, err := read(r)
		if err != nil {
			var zero A
			return zero, err
		}
		return answer(r, q)
	})
}

// bodyOf reads a request's JSON body (server.body) and decodes it with
// decode.
func bodyOf[Q any](s *server, decode func([]byte) (Q, error)) func(*http.Request) (Q, error) {
	return func(r *http.Request) (Q, error) {
		body, err := s.body(r)
		if err != nil {
			var zero Q
			return zero, err
		}
		return decode(body)
	}
}

// bodyObject is the request's JSON body, which must be an object.
func (s *server) bodyObject(r *http.Request) (object, error) {
	return bodyOf(s, func(b []byte) (object, error) { return asObject(b, "the body") })(r)
}

// queryFor reads a request's query string (queryOf) and decodes it with
// decode.
func queryFor[Q any](decode func(query) (Q, error)) func(*http.Request) (Q, error) {
	return func(r *http.Request) (Q, error) {
		q, err := queryOf(r)
		if err != nil {
			var zero Q
			return zero, err
		}
		return decode(q)
	}
}

// pathOf reads the path parameter param as a name of kind n (pathParam).
func pathOf(param string, n *contract.Name) func(*http.Request) (string, error) {
	return func(r *http.Request) (string, error) { return pathParam(r, param, n) }
}

// pathQueue reads the path's :queue.
var pathQueue = pathOf("queue", contract.Queue)

// nothing reads nothing of a request: the route's answer is the tenant's.
func nothing(*http.Request) (struct{}, error) { return struct{}{}, nil }

// appendEach appends each of xs with one, comma-separated.
func appendEach[T any](b []byte, xs []T, one func([]byte, *T) []byte) []byte {
	for i := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = one(b, &xs[i])
	}
	return b
}

// appendStringOf appends *s as a JSON string (appendEach's one).
func appendStringOf(b []byte, s *string) []byte { return appendString(b, *s) }

// orEmpty is xs, or an empty slice when nil (an answer's [] rather than
// null).
func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// The 404s of the resource kinds.

// orMissing is the error of a lookup that failed or found nothing: err
// when there is one, else missing (its 404).
func orMissing(err error, missing *Error) error {
	if err != nil {
		return err
	}
	return missing
}

// queueNotFound is the 404 queue_not_found of a queue that is not there.
func queueNotFound(name string) *Error {
	return &Error{Status: http.StatusNotFound, Code: CodeQueueNotFound, Message: fmt.Sprintf("queue %q not found", clipped(name))}
}

// queryNotFound is the 404 query_not_found of a stream query.
func queryNotFound(format string, args ...any) *Error {
	return &Error{Status: http.StatusNotFound, Code: CodeQueryNotFound, Message: fmt.Sprintf(format, args...)}
}

// messageNotFound is the 404 not_found of message ids that name no
// message; why says what else it may be.
func messageNotFound(txid, pid, why string) *Error {
	return notFound("no message %q is known on partition %s ("+why+")", txid, pid)
}

// notFound is a 404 not_found.
func notFound(format string, args ...any) *Error {
	return &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: fmt.Sprintf(format, clipArgs(args)...)}
}

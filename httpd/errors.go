package httpd

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/queen-mq/queen-go/contract"
)

// The engine error codes httpd itself answers (API.md §0).
const (
	CodeBadBody         = "bad_body"          // 400: the body is not JSON
	CodeBadRequest      = "bad_request"       // 400: a field has the wrong type or value
	CodePayloadTooLarge = "payload_too_large" // 413: the body is over Options.MaxBodyBytes
	CodeNoSuchRoute     = "no_such_route"     // 404: no route has this path and method
	CodeQueueNotFound   = "queue_not_found"   // 404: resources/queues/:queue of no queue
	CodeNotFound        = "not_found"         // 404: a consumer group (or its queue) that is not there
	CodeGone            = "gone"              // 404: ErrGone, a dead letter no longer in the DLQ
	CodeTimeout         = "timeout"           // 503: ErrTimeout, or the request's deadline passed
	CodeNoLeader        = "no_leader"         // 503: ErrNoLeader
	CodeRetry           = "retry"             // 503: ErrRetry
	CodeInternal        = "internal"          // 500: anything else
	CodeStorageFull     = "storage_full"      // 507: a disk above its high mark; the write did not happen
)

// The KV error code and the kv_… reasons httpd itself answers (API.md
// §5); the broker answers the others.
const (
	CodeKVBadRequest       = "kv_bad_request"
	ReasonKVNoQueryString  = "kv_no_query_string"
	ReasonKVFieldInPath    = "kv_field_in_path"
	ReasonKVTenantNotInput = "kv_tenant_not_an_input"
	ReasonKVBadNamespace   = contract.KVReasonBadNamespace
	ReasonKVBadKey         = contract.KVReasonBadKey
	ReasonKVKeyTooLarge    = contract.KVReasonKeyTooLarge
	// ReasonKVTooManyOps and ReasonKVTooManyKeys refuse a transaction's
	// kv[] over MaxTxnKVOps ops or MaxTxnKVKeys keys (413: the contract
	// counts them as the transaction's kv size).
	ReasonKVTooManyOps  = contract.KVReasonTooManyOps
	ReasonKVTooManyKeys = contract.KVReasonTooManyKeys
	// ReasonKVBadBody is the reason of a KV call whose body is not JSON or
	// not of the call's shape (the contract names none).
	ReasonKVBadBody = "kv_bad_body"
	// ReasonKVBadField is the reason of an op field of the wrong JSON type
	// for which the contract names no reason of its own (limit, keysOnly,
	// required).
	ReasonKVBadField = "kv_bad_field"
)

// statusClientClosed is logged and counted when the client went away
// before its answer (nginx's 499); the client never sees it.
const statusClientClosed = 499

// badRequest is a 400 bad_request. Like every error constructor here, it
// quotes at most contract.ClipBytes of each string argument (clipArgs).
func badRequest(format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: fmt.Sprintf(format, clipArgs(args)...)}
}

func badBody(format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeBadBody, Message: fmt.Sprintf(format, clipArgs(args)...)}
}

func tooLarge(n, max int64) *Error {
	msg := fmt.Sprintf("the body is over %d bytes", max)
	if n >= 0 {
		msg = fmt.Sprintf("the body of %d bytes is over %d", n, max)
	}
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodePayloadTooLarge, Message: msg}
}

func kvError(status int, reason, format string, args ...any) *Error {
	code := CodeKVBadRequest
	if status == http.StatusRequestEntityTooLarge {
		code = CodePayloadTooLarge
	}
	return &Error{Status: status, Code: code, Reason: reason, Detail: fmt.Sprintf(format, clipArgs(args)...)}
}

// asKV turns an engine-shaped 400 of the body decoders into the KV shape,
// so that a KV route answers one shape for its own refusals.
func asKV(err error, reason string) error {
	var e *Error
	if errors.As(err, &e) && e.Reason == "" && e.Status == http.StatusBadRequest {
		return &Error{Status: e.Status, Code: CodeKVBadRequest, Reason: reason, Detail: e.Message}
	}
	return err
}

// engineBody is the engine error envelope.
type engineBody struct {
	Error  string `json:"error"`
	Code   string `json:"code"`
	Leader string `json:"leader,omitempty"`
}

// kvBody is the KV error envelope.
type kvBody struct {
	Error  string `json:"error"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
}

// writeError answers err as API.md §0 maps it, and notes it on the
// request for the log line of a 5xx.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	e := classify(r, err)
	noteError(r, err)
	if e.Status == http.StatusServiceUnavailable || e.Status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	if e.Reason != "" {
		writeJSON(w, e.Status, kvBody{Error: e.Code, Reason: e.Reason, Detail: capMessage(e.Detail)})
		return
	}
	msg := e.Message
	if msg == "" {
		msg = e.Code
	}
	writeJSON(w, e.Status, engineBody{Error: capMessage(msg), Code: e.Code, Leader: capMessage(e.Leader)})
}

// classify maps an error to the answer the contract gives it.
func classify(r *http.Request, err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		if e.Status == 0 || e.Code == "" {
			c := *e
			if c.Status == 0 {
				c.Status = http.StatusInternalServerError
			}
			if c.Code == "" {
				c.Code = CodeInternal
			}
			return &c
		}
		return e
	case errors.Is(r.Context().Err(), context.Canceled):
		// The client went away: whatever the broker answered (a
		// cancelled proposal reads as a timeout), nobody hears it.
		return &Error{Status: statusClientClosed, Code: "client_closed", Message: "the client went away"}
	case errors.Is(err, ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return unavailable(CodeTimeout, "the request's deadline passed; the outcome is unknown")
	case errors.Is(err, ErrNoLeader):
		return unavailable(CodeNoLeader, "no leader is known")
	case errors.Is(err, ErrRetry):
		return unavailable(CodeRetry, "the leader changed; retry")
	}
	return &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "internal error"}
}

func unavailable(code, msg string) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: code, Message: msg}
}

// noRoute answers every path and method no route serves.
func noRoute(w http.ResponseWriter, r *http.Request) {
	if s, ok := r.Context().Value(stateKey{}).(*reqState); ok {
		s.unmatched = true
	}
	writeJSON(w, http.StatusNotFound, engineBody{Error: "Not Found", Code: CodeNoSuchRoute})
}

package kvstore

import (
	"errors"
	"fmt"

	"github.com/queen-mq/queen-go/contract"
)

// Error is a call refused before anything was proposed or read: the
// contract's status, error code and reason, so the HTTP layer can answer
// {"error": Code, "reason": Reason, "detail": Detail} with Status.
type Error struct {
	// Status is the HTTP status: 400, or 413 for a key or value too large.
	Status int
	// Code is "kv_bad_request" for a 400 and "payload_too_large" for a 413.
	Code string
	// Reason is the kv_* reason code, one of the Reason* constants below.
	Reason string
	// Index is the op at fault, or -1 when it is the whole call.
	Index int
	// Detail says what was wrong, for a person.
	Detail string
}

func (e *Error) Error() string {
	if e.Index >= 0 {
		return fmt.Sprintf("kvstore: %s: op %d: %s", e.Reason, e.Index, e.Detail)
	}
	return fmt.Sprintf("kvstore: %s: %s", e.Reason, e.Detail)
}

// The codes of Error.Code.
const (
	CodeBadRequest      = "kv_bad_request"
	CodePayloadTooLarge = "payload_too_large"
)

// The reason codes of Error.Reason. API.md §5 names most of them; the
// contract leaves the shape errors of incr (delta, bounds) and of a value
// (missing, not JSON) unnamed, and these are the names chosen for them.
const (
	ReasonUnknownOp      = "kv_unknown_op"
	ReasonBadNamespace   = "kv_bad_namespace"
	ReasonBadKey         = "kv_bad_key"
	ReasonKeyTooLarge    = "kv_key_too_large"
	ReasonValueTooLarge  = "kv_value_too_large"
	ReasonBadValue       = "kv_bad_value"
	ReasonBadTTL         = "kv_bad_ttl"
	ReasonExpiryNotGiven = "kv_expiry_not_specified"
	ReasonBadExpect      = "kv_bad_expect"
	ReasonBadDelta       = "kv_bad_delta"
	ReasonBadBounds      = "kv_bad_bounds"
	ReasonTooManyOps     = "kv_too_many_ops"
	ReasonTooManyKeys    = "kv_too_many_keys"
	ReasonDuplicateKey   = "kv_duplicate_key_in_call"
	ReasonPrefixRequired = "kv_prefix_required"
)

// badRequest is a 400 of reason. Its detail quotes at most
// contract.ClipBytes of each string argument, so no answer echoes a large
// input.
func badRequest(index int, reason, format string, args ...any) *Error {
	return &Error{Status: 400, Code: CodeBadRequest, Reason: reason, Index: index, Detail: fmt.Sprintf(format, contract.ClipArgs(args)...)}
}

func tooLarge(index int, reason, format string, args ...any) *Error {
	return &Error{Status: 413, Code: CodePayloadTooLarge, Reason: reason, Index: index, Detail: fmt.Sprintf(format, contract.ClipArgs(args)...)}
}

// ErrCorrupt is wrapped by errors decoding a call, an answer or a stored
// row.
var ErrCorrupt = errors.New("kvstore: corrupt encoding")

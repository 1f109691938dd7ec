package httpd

import (
	"context"
	"encoding/json"
)

// Locker is a Broker that serves POST /api/v1/locks (API.md §6). The
// route is registered only when the broker is one.
type Locker interface {
	// Locks runs one call of lock operations, checked by httpd for their
	// shape (LockOp). Each answer must marshal to the operation's result
	// object; a call the broker refuses as a whole is an *Error.
	Locks(ctx context.Context, tenant string, ops []LockOp) ([]json.Marshaler, error)
}

// LockOp is one operation of a locks call, its fields checked for type
// and range. Op is acquire, renew, release or get; which of the others
// count depends on it (Owner "" on acquire: the broker mints one).
type LockOp struct {
	Op         string
	Name       string
	Owner      string
	Limit      int
	TTLSeconds int64
	Token      int64
	Slot       int
}

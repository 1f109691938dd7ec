package s3sink

import "github.com/queen-mq/queen-go/s3sink/objstore"

// ObjectStore is the bucket as the sink uses it (objstore.Store, whose
// doc states the error contract): whole objects under keys, no listing,
// no conditional writes, no read-after-write; every write idempotent.
type ObjectStore = objstore.Store

// The classes of ObjectStore errors the sink branches on (objstore's).
var (
	ErrNotFound     = objstore.ErrNotFound
	ErrAccessDenied = objstore.ErrAccessDenied
)

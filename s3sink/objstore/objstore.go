package objstore

import (
	"context"
	"errors"
)

// Store is the bucket as the sink uses it: whole objects under keys, no
// listing, no conditional writes, no read-after-write. Every method takes
// the caller's context and is safe to call concurrently.
//
// Error contract: ErrNotFound when the key (or the bucket) does not exist;
// ErrAccessDenied when the credentials may not do it; any other error is
// transient from the sink's view (it backs off and tries again). Every
// write is idempotent: writing the same bytes under the same key twice
// leaves one object with those bytes, which is how a redo is safe.
type Store interface {
	// Put writes body under key in one request, with its Content-MD5.
	Put(ctx context.Context, key string, body []byte) error
	// PutMultipart writes body under key as a multipart upload in parts of
	// partSize bytes (the last one shorter). An upload that fails is
	// aborted before the error returns.
	PutMultipart(ctx context.Context, key string, body []byte, partSize int) error
	// Get reads a whole object.
	Get(ctx context.Context, key string) ([]byte, error)
	// Head reports an object's size.
	Head(ctx context.Context, key string) (size int64, err error)
}

// The classes of Store errors the sink branches on. Their text names the
// sink, whose classes they are.
var (
	ErrNotFound     = errors.New("s3sink: not found")
	ErrAccessDenied = errors.New("s3sink: access denied")
)

package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for concurrent use. The zero value is an
// empty buffer ready to use; a Buffer must not be copied after first use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer // INVARIANT: read and written only with mu held.
}

// Write appends p to the buffer; it never fails (bytes.Buffer's Write).
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

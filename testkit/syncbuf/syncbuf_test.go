package syncbuf_test

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/queen-mq/queen-go/testkit/syncbuf"
)

var _ io.Writer = (*syncbuf.Buffer)(nil)
var _ fmt.Stringer = (*syncbuf.Buffer)(nil)

// TestConcurrentWrites: writes from several goroutines, read while they
// run, all arrive whole (run it with -race).
func TestConcurrentWrites(t *testing.T) {
	var b syncbuf.Buffer
	const writers, lines = 4, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				fmt.Fprintf(&b, "w%d-%d\n", w, i)
			}
		}()
	}
	for range 10 {
		_ = b.String()
	}
	wg.Wait()
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines, want %d", len(got), writers*lines)
	}
	seen := map[string]bool{}
	for _, l := range got {
		seen[l] = true
	}
	for w := range writers {
		for i := range lines {
			if l := fmt.Sprintf("w%d-%d", w, i); !seen[l] {
				t.Fatalf("line %q is missing or torn", l)
			}
		}
	}
}

// TestZeroValue: an unwritten Buffer reads empty, and formats as its
// content with %q, as a *bytes.Buffer does.
func TestZeroValue(t *testing.T) {
	var b syncbuf.Buffer
	if s := b.String(); s != "" {
		t.Fatalf("zero Buffer = %q", s)
	}
	if n, err := b.Write([]byte("a\"b")); n != 3 || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if s := fmt.Sprintf("%q", &b); s != `"a\"b"` {
		t.Fatalf("%%q = %s", s)
	}
}

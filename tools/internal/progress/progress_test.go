package progress

import (
	"bytes"
	"os"
	"testing"
	"time"

	"golang.org/x/term"
)

// fakeClock is a Line's clock that moves only when told.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestLineRewritesInPlaceAndThrottles(t *testing.T) {
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(1000, 0)}
	l := New(&b)
	l.now, l.start = clk.now, clk.t
	l.Printf("a %d", 1)
	l.Printf("a %d", 2) // within Interval: held back
	if got := b.String(); got != "\ra 1\x1b[K" {
		t.Fatalf("after two quick lines: %q", got)
	}
	clk.t = clk.t.Add(Interval)
	l.Printf("a %d", 3)
	l.Printf("a %d", 4)
	l.Flush()
	l.Clear()
	want := "\ra 1\x1b[K\ra 3\x1b[K\ra 4\x1b[K\r\x1b[K"
	if got := b.String(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if l.Elapsed() != Interval {
		t.Fatalf("elapsed %v, want %v", l.Elapsed(), Interval)
	}
}

func TestLineOffWritesNothing(t *testing.T) {
	var l *Line
	l.Printf("x")
	l.Flush()
	l.Clear()
	off := New(nil)
	off.Printf("x")
	off.Clear()
	if off.On() || l.On() {
		t.Fatal("a line without a writer says it is on")
	}
	// Stderr under go test is a pipe or a file, not a terminal: off.
	if s := Stderr(); s.On() && !term.IsTerminal(int(os.Stderr.Fd())) {
		t.Fatal("Stderr is on though stderr is no terminal")
	}
}

func TestClearWithoutLineWritesNothing(t *testing.T) {
	var b bytes.Buffer
	l := New(&b)
	l.Clear()
	if b.Len() != 0 {
		t.Fatalf("Clear of an unwritten line wrote %q", b.String())
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

package progress

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/term"

	"github.com/queen-mq/queen-go/testkit/syncbuf"
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

func TestEveryShowsUntilStopped(t *testing.T) {
	w := &syncbuf.Buffer{}
	l := New(w)
	calls := make(chan struct{}, 100)
	stop := l.Every(func() string {
		select {
		case calls <- struct{}{}:
		default:
		}
		return "tick"
	})
	deadline := time.After(10 * time.Second)
	for range 2 {
		select {
		case <-calls:
		case <-deadline:
			t.Fatal("text was not called twice within 10 s")
		}
	}
	stop()
	stop() // a second stop is harmless
	got := w.String()
	if !strings.HasPrefix(got, "\rtick\x1b[K") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Fatalf("line %q: want ticks, then the line cleared", got)
	}
}

func TestEveryOffCallsNothing(t *testing.T) {
	stop := New(nil).Every(func() string { t.Error("text called on a line that is off"); return "" })
	stop()
}

func TestMeter(t *testing.T) {
	var m Meter
	t0 := time.Unix(0, 0)
	if r := m.Rate(0, t0); r != 0 {
		t.Fatalf("first sample: %v", r)
	}
	if r := m.Rate(50, t0.Add(500*time.Millisecond)); r != 0 {
		t.Fatalf("before a window: %v", r)
	}
	if r := m.Rate(200, t0.Add(2*time.Second)); r != 100 {
		t.Fatalf("200 in 2 s: %v, want 100", r)
	}
	if r := m.Rate(210, t0.Add(2500*time.Millisecond)); r != 100 {
		t.Fatalf("within the next window: %v, want the last rate 100", r)
	}
	if r := m.Rate(260, t0.Add(3*time.Second)); r != 60 {
		t.Fatalf("60 in the next second: %v, want 60", r)
	}
}

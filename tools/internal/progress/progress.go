// Package progress is the status line that long commands of this module
// (queen-lake verify, queenctl lake verify, queen-bench, queen-sinkbench)
// rewrite in place on a terminal: one line, started with "\r" and ended
// with an erase to the end of the line, at most ten times a second. When
// the output is not a terminal (a pipe, a CI log) a Line writes nothing at
// all, so that such output stays what it was.
//
//	line := progress.Stderr()
//	defer line.Clear()
//	line.Printf("objects %d/%d", done, total)
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// Interval is the least time between two lines a Line writes (the last
// one, Flush's, excepted).
const Interval = 100 * time.Millisecond

// Line is one status line. Its methods are safe for concurrent use; the
// zero Line and a nil *Line write nothing.
type Line struct {
	mu      sync.Mutex
	w       io.Writer
	start   time.Time
	last    time.Time
	pending string
	shown   bool
	now     func() time.Time
}

// Stderr is a Line on os.Stderr when it is a terminal, and one that
// writes nothing when it is not.
func Stderr() *Line {
	if !term.IsTerminal(int(os.Stderr.Fd())) {
		return New(nil)
	}
	return New(os.Stderr)
}

// New is a Line that writes to w; nil w writes nothing.
func New(w io.Writer) *Line {
	return &Line{w: w, start: time.Now(), now: time.Now}
}

// On reports whether the line writes anything.
func (l *Line) On() bool { return l != nil && l.w != nil }

// Elapsed is the time since the Line was made.
func (l *Line) Elapsed() time.Duration {
	if l == nil || l.now == nil {
		return 0
	}
	return l.now().Sub(l.start)
}

// Printf sets the line's text; it is written now unless a line was
// written less than Interval ago, in which case the next Printf or Flush
// writes it.
func (l *Line) Printf(format string, args ...any) {
	if !l.On() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = fmt.Sprintf(format, args...)
	if now := l.now(); l.shown && now.Sub(l.last) < Interval {
		return
	}
	l.write()
}

// Flush writes the text Printf last set, if it was held back.
func (l *Line) Flush() {
	if !l.On() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending != "" {
		l.write()
	}
}

// write writes l.pending; l.mu is held.
func (l *Line) write() {
	fmt.Fprintf(l.w, "\r%s\x1b[K", l.pending)
	l.pending, l.shown, l.last = "", true, l.now()
}

// Clear erases the line, if one was written, so that what follows starts
// on a clean line.
func (l *Line) Clear() {
	if !l.On() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown {
		fmt.Fprint(l.w, "\r\x1b[K")
	}
	l.pending, l.shown = "", false
}

// Rate is n per second over d, 0 for no time.
func Rate(n float64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return n / d.Seconds()
}

// Bytes renders n bytes for people: 512 B, 1.5 KiB, 3.2 MiB, 1.0 GiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

package lake

import (
	"fmt"
	"io"
	"strings"

	"github.com/queen-mq/queen-go/lakeformat"
)

// Check names the check a Problem failed.
type Check string

// The checks of Verify.
const (
	// CheckManifest: a manifest key or body (decodes, its k, tenant, queue).
	CheckManifest Check = "manifest"
	// CheckObject: an object a manifest names (exists, size, sha256,
	// decodes, record count, ts within the window, order, partition and
	// offsets of a per-partition object) or the manifest's sums over it.
	CheckObject Check = "object"
	// CheckSequence: windows are 1..n with no gap in k.
	CheckSequence Check = "sequence"
	// CheckOverlap: a window starts before the previous one ends.
	CheckOverlap Check = "overlap"
	// CheckDuplicate: one (partition, offset) in two windows.
	CheckDuplicate Check = "duplicate"
	// CheckOffsets: a partition's offsets go back from one window to a
	// later one.
	CheckOffsets Check = "offsets"
	// CheckLost: a lost range that contradicts the lake, or offsets gone
	// from the broker that neither the lake nor a lost range accounts for.
	CheckLost Check = "lost"
	// CheckOrphan: a data object under the queue's prefix that no manifest
	// names.
	CheckOrphan Check = "orphan"
	// CheckMissing: a record the broker holds in the lake's time span that
	// the lake lacks.
	CheckMissing Check = "missing"
	// CheckExtra: a record in the lake that the broker never held.
	CheckExtra Check = "extra"
	// CheckMismatch: a record whose ts, transactionId or payload differ
	// between the lake and the broker.
	CheckMismatch Check = "mismatch"
	// CheckBroker: the broker refused or lacks the queue.
	CheckBroker Check = "broker"
)

// Problem is one failed check.
type Problem struct {
	Check Check
	// K is the window the problem is in; 0 when it is in none.
	K uint64
	// Key is the object the problem is about; "" when none.
	Key string
	// Msg says what is wrong.
	Msg string
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(string(p.Check))
	if p.K != 0 {
		fmt.Fprintf(&b, " k=%d", p.K)
	}
	if p.Key != "" {
		fmt.Fprintf(&b, " %s", p.Key)
	}
	b.WriteString(": ")
	b.WriteString(p.Msg)
	return b.String()
}

// Report is what Verify found. The lake passed when Problems is empty
// (OK).
type Report struct {
	// Windows, Objects, Records and Bytes count the committed windows and
	// what their manifests say they hold.
	Windows, Objects int
	Records, Bytes   int64
	// Lost counts the offsets the manifests' lost ranges declare lost.
	Lost int64
	// FirstTStart, FirstTEnd and LastTEnd bound the windows, µs; 0 when
	// there is none.
	FirstTStart, FirstTEnd, LastTEnd int64
	// Checkpoints counts the checkpoint objects (a cache; not checked).
	Checkpoints int
	// Broker is what the comparison with the broker saw; nil without one.
	Broker *BrokerSummary
	// Problems are the failed checks, in the order found, at most
	// Config.MaxProblems of them; Dropped counts the rest.
	Problems []Problem
	Dropped  int
	// Notes are things worth knowing that are not failures (retention,
	// windows in flight).
	Notes []string

	max int
}

// BrokerSummary is what the comparison with the broker saw.
type BrokerSummary struct {
	// Partitions is how many partitions the broker lists.
	Partitions int
	// Fetched counts the broker's records read; Compared those in the
	// lake's span [FirstTStart, LastTEnd) checked against the lake.
	Fetched, Compared int64
	// Retained counts lake records the broker no longer holds (its log
	// start moved past them), and Before the broker's records stamped
	// before the first window.
	Retained, Before int64
}

// OK reports whether every check passed.
func (r *Report) OK() bool { return len(r.Problems) == 0 && r.Dropped == 0 }

// add records a problem.
func (r *Report) add(c Check, k uint64, key, format string, args ...any) {
	if r.max > 0 && len(r.Problems) >= r.max {
		r.Dropped++
		return
	}
	r.Problems = append(r.Problems, Problem{Check: c, K: k, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// note records a note.
func (r *Report) note(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// Has reports whether some problem failed check c.
func (r *Report) Has(c Check) bool {
	for _, p := range r.Problems {
		if p.Check == c {
			return true
		}
	}
	return false
}

// WriteTo prints the problems, the notes and the summary, one per line.
func (r *Report) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "FAIL %s\n", p)
	}
	if r.Dropped > 0 {
		fmt.Fprintf(&b, "FAIL ... and %d more problems\n", r.Dropped)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	fmt.Fprintf(&b, "windows %d, objects %d, records %d, bytes %d, lost %d, first tEnd %s, last tEnd %s\n",
		r.Windows, r.Objects, r.Records, r.Bytes, r.Lost, isoOrDash(r.FirstTEnd, r.Windows), isoOrDash(r.LastTEnd, r.Windows))
	if bs := r.Broker; bs != nil {
		fmt.Fprintf(&b, "broker: %d partitions, %d records read, %d compared, %d gone from the broker, %d before the first window\n",
			bs.Partitions, bs.Fetched, bs.Compared, bs.Retained, bs.Before)
	}
	if r.OK() {
		b.WriteString("OK\n")
	} else {
		fmt.Fprintf(&b, "FAILED: %d problems\n", len(r.Problems)+r.Dropped)
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// isoOrDash renders ts as ISO-8601, or "-" when there are no windows.
func isoOrDash(ts int64, windows int) string {
	if windows == 0 {
		return "-"
	}
	return iso(ts)
}

// iso renders a stamp as the lake does, guarding the range FormatTs takes.
func iso(ts int64) string {
	if ts < lakeformat.MinTs || ts > lakeformat.MaxTs {
		return fmt.Sprintf("%dµs", ts)
	}
	return lakeformat.FormatTs(ts)
}

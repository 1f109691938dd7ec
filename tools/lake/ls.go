package lake

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/queen-mq/queen-go/lakeformat"
)

// List reads the queue's committed windows from their manifests, in k
// order. A manifest that cannot be read is a Window with Err set; only a
// failed listing (or a bad Config) is an error.
func List(ctx context.Context, cfg Config) ([]Window, error) {
	st, keys, err := cfg.open()
	if err != nil {
		return nil, err
	}
	d, err := queueDirs(keys, cfg.Tenant, cfg.Queue)
	if err != nil {
		return nil, err
	}
	return loadWindows(ctx, st, keys, d, cfg.Tenant, cfg.Queue, cfg.Concurrency)
}

// WriteList prints the windows as a table, one line each (k, tStart and
// tEnd in ISO-8601, records, bytes, objects, lost ranges), then a total
// line. A window whose manifest could not be read prints its error in the
// LOST column.
func WriteList(w io.Writer, ws []Window) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "K\tTSTART\tTEND\tRECORDS\tBYTES\tOBJECTS\tLOST")
	var n, objects int
	var records, size, lost int64
	for _, win := range ws {
		m := win.Manifest
		if m == nil {
			// In the last cell, which is in no column: the columns stay aligned.
			fmt.Fprintf(tw, "%d\t\t\t\t\t\terror: %v\n", win.K, win.Err)
			continue
		}
		n++
		objects += len(m.Objects)
		records += m.Records
		size += m.Bytes
		lost += lostCount(m.Lost)
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%d\t%s\n", m.K, iso(m.TStart), iso(m.TEnd), m.Records, m.Bytes, len(m.Objects), lostText(m.Lost))
		if win.Err != nil {
			fmt.Fprintf(tw, "%d\t\t\t\t\t\terror: %v\n", win.K, win.Err)
		}
	}
	fmt.Fprintf(tw, "total\t%d windows\t\t%d\t%d\t%d\t%d lost\n", n, records, size, objects, lost)
	return tw.Flush()
}

// lostText renders lost ranges as partition:from-to, space-separated, or
// "-" when there are none.
func lostText(lost []lakeformat.LostRange) string {
	if len(lost) == 0 {
		return "-"
	}
	parts := make([]string, len(lost))
	for i, r := range lost {
		parts[i] = fmt.Sprintf("%s:%d-%d", r.Partition, r.From, r.To)
	}
	return strings.Join(parts, " ")
}

// lostCount is how many offsets the ranges cover.
func lostCount(lost []lakeformat.LostRange) int64 {
	var n int64
	for _, r := range lost {
		n += r.To - r.From + 1
	}
	return n
}

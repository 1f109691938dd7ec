package s3sink

import (
	"math"
	"slices"

	"github.com/queen-mq/queen-go/lakeformat"
)

const (
	microsPerHour = int64(3600_000_000)
	microsPerDay  = 24 * microsPerHour
)

// alignFloor returns the start of the alignment period ts falls in: its
// hour, its UTC day, or ts itself without alignment.
func alignFloor(ts int64, a lakeformat.Align) int64 {
	switch a {
	case lakeformat.AlignHour:
		return ts - ts%microsPerHour
	case lakeformat.AlignDay:
		return ts - ts%microsPerDay
	}
	return ts
}

// nextBoundary returns the first alignment boundary after ts, which no
// window starting at ts may cross.
func nextBoundary(ts int64, a lakeformat.Align) int64 {
	switch a {
	case lakeformat.AlignHour:
		return alignFloor(ts, a) + microsPerHour
	case lakeformat.AlignDay:
		return alignFloor(ts, a) + microsPerDay
	}
	return math.MaxInt64
}

// partBuf is what the sink holds of one partition: its next offset to read
// and the records read past the open window's start.
type partBuf struct {
	name string
	// id is the UUID of the partition's life the sink reads (PartitionInfo.ID;
	// "" until a discovery says it).
	id string
	// next is the offset the next fetch starts at.
	next int64
	// recs are read records, in offset (and so ts) order, all stamped at or
	// after the open window's start.
	recs []lakeformat.Record
	// lost are offset ranges retention deleted before they were read,
	// reported in the next window's manifest.
	lost []lakeformat.LostRange
}

// recordSize is what a record counts against the window target and the
// memory budget: its bytes, uncompressed.
func recordSize(r *lakeformat.Record) int64 {
	return int64(len(r.Partition) + len(r.TransactionID) + len(r.Payload) + 16)
}

// below counts the records, and their size, stamped before t.
func (p *partBuf) below(t int64) (n int, size int64) {
	n, _ = slices.BinarySearchFunc(p.recs, t, func(r lakeformat.Record, t int64) int {
		switch {
		case r.Ts < t:
			return -1
		case r.Ts > t:
			return 1
		}
		return 0
	})
	// BinarySearch finds the first record at t; records at t stay.
	for i := range n {
		size += recordSize(&p.recs[i])
	}
	return n, size
}

// closeReason is why a window closed.
type closeReason string

const (
	closeSize   closeReason = "size"
	closeAge    closeReason = "age"
	closeAlign  closeReason = "align"
	closeMemory closeReason = "memory"
	closeDrain  closeReason = "drain"
)

// closeInput is what a close decision looks at.
type closeInput struct {
	tStart   int64 // the open window's start
	end      int64 // safeTime - guard: the latest a window may end
	align    lakeformat.Align
	target   int64 // uncompressed bytes that close a window
	maxAge   int64 // µs a window may stay open on the broker clock
	pressure bool  // the node's buffers are past their budget, and this queue holds the most
	drain    bool  // the node is stopping
}

// decideClose says whether the open window closes now, and its end: the
// earlier of end and the alignment boundary. It closes when it holds the
// target size, when it is maxAge old, when it reached the boundary, under
// memory pressure, or on a drain when it is worth it (1 MiB or 10 s old).
// A window with no record below its end never closes: the stretch is
// skipped instead (see skipEmpty), unless it carries lost ranges, which a
// manifest must report even when nothing else happens on the queue.
func decideClose(in closeInput, parts []*partBuf) (end int64, why closeReason, ok bool) {
	if in.end <= in.tStart {
		return 0, "", false
	}
	boundary := nextBoundary(in.tStart, in.align)
	end = min(in.end, boundary)
	var n int
	var size int64
	lost := false
	for _, p := range parts {
		pn, ps := p.below(end)
		n += pn
		size += ps
		lost = lost || len(p.lost) > 0
	}
	age := in.end - in.tStart
	switch {
	case n == 0 && !lost:
		return 0, "", false
	case size >= in.target:
		return end, closeSize, true
	case in.end >= boundary:
		return end, closeAlign, true
	case age >= in.maxAge:
		return end, closeAge, true
	case in.pressure:
		return end, closeMemory, true
	case in.drain && (size >= drainMinBytes || age >= drainMinAge):
		return end, closeDrain, true
	}
	return 0, "", false
}

// What makes a filling window worth committing on a drain.
const (
	drainMinBytes = 1 << 20
	drainMinAge   = 10_000_000 // µs
)

// skipEmpty moves the open window's start past a stretch with no records:
// to the alignment period of the earliest record read, or of end when
// there is none. Every record stamped below end has been read, so none lies
// in the stretch skipped.
func skipEmpty(tStart, end int64, a lakeformat.Align, parts []*partBuf) int64 {
	low := end
	for _, p := range parts {
		if len(p.recs) > 0 {
			low = min(low, p.recs[0].Ts)
		}
	}
	return max(tStart, alignFloor(low, a))
}

// completeThrough is the stamp below which every record is in a committed
// window, for the open window's start and end: its first record's stamp,
// or end when none is read below it (everything below end has been read).
func completeThrough(tStart, end int64, parts []*partBuf) int64 {
	low := end
	for _, p := range parts {
		if len(p.recs) > 0 {
			low = min(low, p.recs[0].Ts)
		}
	}
	return max(tStart, low)
}

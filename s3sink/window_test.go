package s3sink

import (
	"math"
	"testing"

	"github.com/queen-mq/queen-go/lakeformat"
)

// Stamps of the tests: 2000-01-01T00:00:00Z and a few after it.
const (
	day0 = int64(946684800_000000)
	sec  = int64(1_000_000)
)

// alignCase is a stamp and an alignment, and what a boundary function
// (alignFloor, nextBoundary) answers for them.
type alignCase struct {
	name string
	ts   int64
	a    lakeformat.Align
	want int64
}

func testAlign(t *testing.T, fn string, f func(int64, lakeformat.Align) int64, cases []alignCase) {
	t.Helper()
	for _, c := range cases {
		if got := f(c.ts, c.a); got != c.want {
			t.Errorf("%s: %s(%d) = %d, want %d", c.name, fn, c.ts, got, c.want)
		}
	}
}

func TestAlignFloor(t *testing.T) {
	testAlign(t, "alignFloor", alignFloor, []alignCase{
		{"hour, on the hour", day0 + microsPerHour, lakeformat.AlignHour, day0 + microsPerHour},
		{"hour, a µs before it", day0 + microsPerHour - 1, lakeformat.AlignHour, day0},
		{"hour, a µs after it", day0 + microsPerHour + 1, lakeformat.AlignHour, day0 + microsPerHour},
		{"hour, the epoch", 0, lakeformat.AlignHour, 0},
		{"day, on midnight", day0 + microsPerDay, lakeformat.AlignDay, day0 + microsPerDay},
		{"day, a µs before midnight", day0 + microsPerDay - 1, lakeformat.AlignDay, day0},
		{"day, in the afternoon", day0 + 15*microsPerHour + 7, lakeformat.AlignDay, day0},
		{"none keeps the stamp", day0 + 12345, lakeformat.AlignNone, day0 + 12345},
	})
}

func TestNextBoundary(t *testing.T) {
	testAlign(t, "nextBoundary", nextBoundary, []alignCase{
		// A window starting on a boundary may not cross the next one.
		{"hour, on the hour", day0, lakeformat.AlignHour, day0 + microsPerHour},
		{"hour, a µs before it", day0 + microsPerHour - 1, lakeformat.AlignHour, day0 + microsPerHour},
		{"hour, within it", day0 + 30*60*sec, lakeformat.AlignHour, day0 + microsPerHour},
		{"day, on midnight", day0, lakeformat.AlignDay, day0 + microsPerDay},
		{"day, at 23:59:59.999999", day0 + microsPerDay - 1, lakeformat.AlignDay, day0 + microsPerDay},
		{"none: no boundary", day0, lakeformat.AlignNone, math.MaxInt64},
	})
}

// parts makes partition buffers from stamps of records of 100 B each
// (16 + len("p") + len("tx") + 81).
func parts(stamps ...[]int64) []*partBuf {
	var out []*partBuf
	for i, ss := range stamps {
		p := &partBuf{name: string(rune('a' + i))}
		for j, ts := range ss {
			p.recs = append(p.recs, lakeformat.Record{Partition: "p", Offset: int64(j), TransactionID: "tx", Ts: ts, Payload: make([]byte, 81)})
		}
		out = append(out, p)
	}
	return out
}

func TestPartBufBelow(t *testing.T) {
	p := parts([]int64{day0, day0 + 1, day0 + 1, day0 + 5})[0]
	for _, c := range []struct {
		t    int64
		n    int
		size int64
	}{
		{day0, 0, 0},       // below is strict
		{day0 + 1, 1, 100}, // the records at t stay out
		{day0 + 2, 3, 300},
		{day0 + 6, 4, 400},
		{math.MaxInt64, 4, 400},
	} {
		if n, size := p.below(c.t); n != c.n || size != c.size {
			t.Errorf("below(+%d) = %d, %d; want %d, %d", c.t-day0, n, size, c.n, c.size)
		}
	}
	if n, size := (&partBuf{}).below(day0); n != 0 || size != 0 {
		t.Errorf("an empty buffer: below = %d, %d", n, size)
	}
}

func TestDecideClose(t *testing.T) {
	const h = lakeformat.AlignHour
	// An input of a window opened at day0+10s, whose end is 20 s later,
	// with a 1 KiB target and a 60 s age: nothing closes it by default.
	base := closeInput{tStart: day0 + 10*sec, end: day0 + 30*sec, align: h, target: 1024, maxAge: 60 * sec}
	with := func(f func(*closeInput)) closeInput { in := base; f(&in); return in }
	for _, c := range []struct {
		name  string
		in    closeInput
		parts []*partBuf
		end   int64
		why   closeReason
		ok    bool
	}{
		{"young and small", base, parts([]int64{day0 + 11*sec}), 0, "", false},
		{"the end not past the start", with(func(in *closeInput) { in.end = in.tStart; in.drain, in.pressure = true, true }),
			parts([]int64{day0 + 10*sec}), 0, "", false},
		{"the target reached", base, parts(make11(day0 + 11*sec)), day0 + 30*sec, closeSize, true},
		{"the target reached only by records at or past the end", base,
			parts([]int64{day0 + 11*sec}, make11(day0+30*sec)), 0, "", false},
		{"maxAge old", with(func(in *closeInput) { in.end = in.tStart + 60*sec }), parts([]int64{day0 + 11*sec}),
			day0 + 70*sec, closeAge, true},
		{"a µs short of maxAge", with(func(in *closeInput) { in.end = in.tStart + 60*sec - 1 }), parts([]int64{day0 + 11*sec}),
			0, "", false},
		{"old, but with no record below the end", with(func(in *closeInput) { in.end = in.tStart + 600*sec }),
			parts([]int64{day0 + 700*sec}), 0, "", false},
		{"the boundary reached: the end is the boundary", with(func(in *closeInput) { in.maxAge = 2 * microsPerHour; in.end = day0 + microsPerHour + 5*sec }),
			parts([]int64{day0 + 11*sec, day0 + microsPerHour + 1}), day0 + microsPerHour, closeAlign, true},
		{"the boundary reached with records after it only", with(func(in *closeInput) { in.maxAge = 2 * microsPerHour; in.end = day0 + microsPerHour + 5*sec }),
			parts([]int64{day0 + microsPerHour, day0 + microsPerHour + 1}), 0, "", false},
		{"the day's boundary", closeInput{tStart: day0 + 23*microsPerHour, end: day0 + microsPerDay + sec, align: lakeformat.AlignDay,
			target: 1024, maxAge: microsPerDay}, parts([]int64{day0 + 23*microsPerHour}), day0 + microsPerDay, closeAlign, true},
		{"no boundary without alignment", with(func(in *closeInput) {
			in.align, in.maxAge, in.end = lakeformat.AlignNone, 2*microsPerHour, day0+microsPerHour+5*sec
		}), parts([]int64{day0 + 11*sec}), 0, "", false},
		{"size wins over the boundary", with(func(in *closeInput) { in.end = day0 + microsPerHour + 5*sec; in.maxAge = 2 * microsPerHour }),
			parts(make11(day0 + 11*sec)), day0 + microsPerHour, closeSize, true},
		{"memory pressure", with(func(in *closeInput) { in.pressure = true }), parts([]int64{day0 + 11*sec}),
			day0 + 30*sec, closeMemory, true},
		{"memory pressure with nothing below the end", with(func(in *closeInput) { in.pressure = true }),
			parts([]int64{day0 + 31*sec}), 0, "", false},
		{"a drain, 10 s old", with(func(in *closeInput) { in.drain = true; in.end = in.tStart + drainMinAge }),
			parts([]int64{day0 + 11*sec}), day0 + 20*sec, closeDrain, true},
		{"a drain, a µs short of 10 s old and small", with(func(in *closeInput) { in.drain = true; in.end = in.tStart + drainMinAge - 1 }),
			parts([]int64{day0 + 11*sec}), 0, "", false},
		{"a drain, 1 MiB buffered", with(func(in *closeInput) {
			in.drain, in.target, in.end = true, 64<<20, in.tStart+sec
		}), parts(makeN(day0+10*sec, (drainMinBytes+99)/100)), day0 + 11*sec, closeDrain, true},
		{"a drain, under 1 MiB", with(func(in *closeInput) {
			in.drain, in.target, in.end = true, 64<<20, in.tStart+sec
		}), parts(makeN(day0+10*sec, drainMinBytes/100)), 0, "", false},
	} {
		end, why, ok := decideClose(c.in, c.parts)
		if end != c.end || why != c.why || ok != c.ok {
			t.Errorf("%s: decideClose = %d (+%d), %q, %v; want %d, %q, %v", c.name, end, end-day0, why, ok, c.end, c.why, c.ok)
		}
	}
}

// make11 is eleven stamps from ts, one µs apart: 1100 B, past a 1 KiB target.
func make11(ts int64) []int64 { return makeN(ts, 11) }

func makeN(ts int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = ts + int64(i)
	}
	return out
}

func TestSkipEmpty(t *testing.T) {
	const h = lakeformat.AlignHour
	for _, c := range []struct {
		name         string
		tStart, end  int64
		a            lakeformat.Align
		parts        []*partBuf
		want         int64
		wantComplete int64
	}{
		{"nothing read: to the hour of the end", day0 + 10*sec, day0 + 2*microsPerHour + 5, h, nil,
			day0 + 2*microsPerHour, day0 + 2*microsPerHour + 5},
		{"nothing read, the end in the start's hour: stays", day0 + 10*sec, day0 + 50*sec, h, nil,
			day0 + 10*sec, day0 + 50*sec},
		{"to the hour of the first record", day0 + 10*sec, day0 + 3*microsPerHour, h,
			parts([]int64{day0 + 2*microsPerHour + 7}, []int64{day0 + 2*microsPerHour + 9}), day0 + 2*microsPerHour,
			day0 + 2*microsPerHour + 7},
		{"a record past the end: to the hour of the end", day0 + 10*sec, day0 + 2*microsPerHour + 5, h,
			parts([]int64{day0 + 3*microsPerHour}), day0 + 2*microsPerHour, day0 + 2*microsPerHour + 5},
		{"the first record in the start's hour: stays", day0 + 10*sec, day0 + microsPerHour, h,
			parts([]int64{day0 + 20*sec}), day0 + 10*sec, day0 + 20*sec},
		{"day: to the first record's day", day0 + 10*sec, day0 + 3*microsPerDay, lakeformat.AlignDay,
			parts([]int64{day0 + 2*microsPerDay + 5}), day0 + 2*microsPerDay, day0 + 2*microsPerDay + 5},
		{"none: to the first record itself", day0 + 10*sec, day0 + 100*sec, lakeformat.AlignNone,
			parts([]int64{day0 + 42*sec}), day0 + 42*sec, day0 + 42*sec},
		{"none, nothing read: to the end", day0 + 10*sec, day0 + 100*sec, lakeformat.AlignNone, nil,
			day0 + 100*sec, day0 + 100*sec},
		{"an empty partition buffer counts for nothing", day0 + 10*sec, day0 + 2*microsPerHour, h,
			[]*partBuf{{name: "empty"}}, day0 + 2*microsPerHour, day0 + 2*microsPerHour},
	} {
		if got := skipEmpty(c.tStart, c.end, c.a, c.parts); got != c.want {
			t.Errorf("%s: skipEmpty = +%d, want +%d", c.name, got-day0, c.want-day0)
		}
		if got := completeThrough(c.want, c.end, c.parts); got != c.wantComplete {
			t.Errorf("%s: completeThrough = +%d, want +%d", c.name, got-day0, c.wantComplete-day0)
		}
	}
}

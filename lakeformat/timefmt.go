package lakeformat

import (
	"fmt"
	"time"
)

const (
	microsPerSecond = 1_000_000
	microsPerHour   = 3600 * microsPerSecond
	microsPerDay    = 24 * microsPerHour
)

// tsLayout is how every stamp of the lake is rendered: ISO-8601, UTC, six
// fractional digits and Z. AppendTs produces the same bytes, faster.
const tsLayout = "2006-01-02T15:04:05.000000Z"

// AppendTs appends the ISO-8601 rendering of ts (microseconds since the
// epoch, UTC), with six fractional digits and Z, as in
// 2026-10-03T06:37:37.501942Z.
//
// REQUIRES: MinTs <= ts <= MaxTs.
func AppendTs(dst []byte, ts int64) []byte {
	days, rem := ts/microsPerDay, ts%microsPerDay
	y, m, d := civil(days)
	secs, frac := rem/microsPerSecond, rem%microsPerSecond
	dst = append4(dst, y)
	dst = append(dst, '-')
	dst = append2(dst, m)
	dst = append(dst, '-')
	dst = append2(dst, d)
	dst = append(dst, 'T')
	dst = append2(dst, int(secs/3600))
	dst = append(dst, ':')
	dst = append2(dst, int(secs/60%60))
	dst = append(dst, ':')
	dst = append2(dst, int(secs%60))
	dst = append(dst, '.')
	f := int(frac)
	dst = append(dst, byte('0'+f/100000), byte('0'+f/10000%10), byte('0'+f/1000%10),
		byte('0'+f/100%10), byte('0'+f/10%10), byte('0'+f%10), 'Z')
	return dst
}

// FormatTs returns the ISO-8601 rendering of ts, as AppendTs appends it.
func FormatTs(ts int64) string { return string(AppendTs(make([]byte, 0, 27), ts)) }

// ParseTs reads a stamp rendered by FormatTs back into microseconds.
func ParseTs(s string) (int64, error) {
	if len(s) != len(tsLayout) {
		return 0, fmt.Errorf("lakeformat: ts %q is not of the form %s", s, tsLayout)
	}
	t, err := time.Parse(tsLayout, s)
	if err != nil {
		return 0, fmt.Errorf("lakeformat: ts %q is not of the form %s", s, tsLayout)
	}
	us := t.UnixMicro()
	if us < MinTs || us > MaxTs {
		return 0, fmt.Errorf("lakeformat: ts %q is outside the lake's range", s)
	}
	return us, nil
}

// civil converts days since 1970-01-01 into a proleptic Gregorian date
// (Howard Hinnant's days_from_civil, inverted).
func civil(days int64) (year, month, day int) {
	z := days + 719468
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	y := yoe + era*400
	if m <= 2 {
		y++
	}
	return int(y), int(m), int(d)
}

func append2(dst []byte, v int) []byte { return append(dst, byte('0'+v/10), byte('0'+v%10)) }

func append4(dst []byte, v int) []byte {
	return append(dst, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
}

// dateHour returns the UTC date (YYYY-MM-DD) and hour (HH) of ts.
//
// REQUIRES: MinTs <= ts <= MaxTs.
func dateHour(ts int64) (dt, hour string) {
	b := AppendTs(make([]byte, 0, 27), ts)
	return string(b[:10]), string(b[11:13])
}

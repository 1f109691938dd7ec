package check

import (
	"fmt"
	"sort"
)

// CheckCounter checks a counter's incr ops: each answered incr returned
// the counter's new value (answered), unknown incrs got no answer, and
// final is a read made after every answered incr returned. Anomalies, all
// of kind "counter": two answered incrs returned the same value; Final is
// less than the number of answered incrs, or more than answered+unknown
// incrs; and, as follow from the same rules, an answered value outside
// 1..answered+unknown, or above Final.
//
// REQUIRES: the counter starts absent (0) and every incr adds 1.
func CheckCounter(answered []int64, unknown int, final int64) []Anomaly {
	var out []Anomaly
	bad := func(format string, args ...any) {
		out = append(out, Anomaly{KindCounter, fmt.Sprintf(format, args...)})
	}
	most := int64(len(answered) + unknown)
	vals := append([]int64(nil), answered...)
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	for i := 0; i < len(vals); i++ {
		j := i
		for j+1 < len(vals) && vals[j+1] == vals[i] {
			j++
		}
		v := vals[i]
		if j > i {
			bad("%d answered incrs returned %d", j-i+1, v)
		}
		switch {
		case v < 1 || v > most:
			bad("an incr returned %d, outside 1..%d (%d answered + %d unknown incrs)", v, most, len(answered), unknown)
		case v > final:
			bad("an incr returned %d, more than the final value %d", v, final)
		}
		i = j
	}
	switch {
	case final < int64(len(answered)):
		bad("final value %d is less than the %d answered incrs", final, len(answered))
	case final > most:
		bad("final value %d is more than the %d answered + %d unknown incrs", final, len(answered), unknown)
	}
	return out
}

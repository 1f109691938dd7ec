package kvstore

import (
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/queen-mq/queen-go/contract"
)

// decimalContext does exact arithmetic: precision 0 never rounds, and the
// exponent range bounds how many digits a sum can need (about 200,000).
var decimalContext = apd.BaseContext

// parseNumber reads a JSON number exactly; ok is false when it is not one
// or its exponent is beyond apd's range.
func parseNumber(s string) (*apd.Decimal, bool) {
	if !contract.IsJSONNumber(s) {
		return nil, false
	}
	d, _, err := decimalContext.NewFromString(s)
	return d, err == nil
}

// compareNumbers compares two JSON numbers exactly; numbers apd cannot
// read compare as equal (validation only calls it on valid bounds).
func compareNumbers(a, b string) int {
	x, ok1 := parseNumber(a)
	y, ok2 := parseNumber(b)
	if !ok1 || !ok2 {
		return 0
	}
	return x.Cmp(y)
}

// incrOutcome is what adding delta to a value came to.
type incrOutcome int

const (
	incrOK    incrOutcome = iota
	incrType              // the current value is not a JSON number
	incrLimit             // out of [min, max], or not representable
)

// addNumbers adds delta to cur (both JSON number text; cur "" is 0) in
// exact decimal arithmetic and checks the sum against the inclusive bounds
// min and max ("" for none). The sum is rendered without an exponent when
// neither cur nor delta had one, and in the GDA scientific form otherwise;
// a sum longer than MaxValueBytes is a limit.
func addNumbers(cur, delta, lo, hi string) (string, incrOutcome) {
	x := apd.New(0, 0)
	if cur != "" {
		var ok bool
		if !contract.IsJSONNumber(cur) {
			return "", incrType
		}
		if x, ok = parseNumber(cur); !ok {
			return "", incrLimit
		}
	}
	y, ok := parseNumber(delta)
	if !ok {
		return "", incrLimit
	}
	var sum apd.Decimal
	if _, err := decimalContext.Add(&sum, x, y); err != nil {
		return "", incrLimit
	}
	for i, bound := range []string{lo, hi} {
		if bound == "" {
			continue
		}
		b, ok := parseNumber(bound)
		if !ok {
			return "", incrLimit
		}
		if c := sum.Cmp(b); (i == 0 && c < 0) || (i == 1 && c > 0) {
			return "", incrLimit
		}
	}
	var text string
	if strings.ContainsAny(cur, "eE") || strings.ContainsAny(delta, "eE") {
		text = sum.String()
	} else {
		text = sum.Text('f')
	}
	if len(text) > MaxValueBytes || !contract.IsJSONNumber(text) {
		return "", incrLimit
	}
	return text, incrOK
}

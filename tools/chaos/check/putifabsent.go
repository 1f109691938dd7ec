package check

import (
	"fmt"
	"slices"
)

// CheckPutIfAbsent checks put-if-absent attempts on one key: each attempt
// (named by the value it put) answered won or lost, or got no answer
// (unknown); final is the key's value read after all of them ("" when
// absent). A "winners" anomaly unless exactly one won and final is its
// value, or none won, at least one was unknown, and final is the value of
// one of the unknown (or "" when none lost: then none may have landed).
// No attempts at all and final "" is no anomaly.
//
// REQUIRES: every attempt puts a distinct, non-empty value.
func CheckPutIfAbsent(won []string, lost []string, unknown []string, final string) []Anomaly {
	bad := func(format string, args ...any) []Anomaly {
		return []Anomaly{{KindWinners, fmt.Sprintf(format, args...)}}
	}
	switch {
	case len(won) > 1:
		return bad("%d attempts won: %q", len(won), won)
	case len(won) == 1 && final != won[0]:
		return bad("%q won but the final value is %q", won[0], final)
	case len(won) == 1:
		return nil
	case slices.Contains(unknown, final):
		return nil
	case len(unknown) > 0 && final == "" && len(lost) == 0:
		return nil
	case len(unknown) == 0 && len(lost) == 0 && final == "":
		return nil
	case len(unknown) == 0 && len(lost) == 0:
		return bad("no attempt was made but the final value is %q", final)
	case len(unknown) == 0:
		return bad("none won and none is unknown, yet %d lost; the final value is %q", len(lost), final)
	default:
		return bad("none won; the final value %q is none of the %d unknown attempts' %q", final, len(unknown), unknown)
	}
}

// CheckLosersSaw checks what the lost put-if-absent attempts on one key
// were answered: a lost attempt is told the value that won (API.md §5: on
// a loss, value is the winner's), and the key is written by nothing else,
// so each must be final. One "loser-saw" anomaly per loser that saw
// another value.
func CheckLosersSaw(saw []string, final string) []Anomaly {
	var out []Anomaly
	for _, v := range saw {
		if v != final {
			out = append(out, Anomaly{KindLoserSaw, fmt.Sprintf("a lost attempt was told %q won, but the final value is %q", v, final)})
		}
	}
	return out
}

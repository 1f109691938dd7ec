package check

import (
	"fmt"
	"sort"
)

// CheckSame checks that every node read the same final value of what
// names (a key, a counter): reads maps a node's name to what it read.
// One "diverged" anomaly, naming every node's read, when two differ.
func CheckSame(what string, reads map[string]string) []Anomaly {
	names := make([]string, 0, len(reads))
	for n := range reads {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if reads[n] != reads[names[0]] {
			detail := what + ": the nodes read different final values:"
			for _, m := range names {
				detail += fmt.Sprintf(" %s %q", m, reads[m])
			}
			return []Anomaly{{KindDiverged, detail}}
		}
	}
	return nil
}

package check

import "strings"

// findings gathers what CheckLog finds, merging one finding seen on
// several nodes into one Anomaly.
type findings struct {
	order []finding
	nodes map[finding][]string
}

// finding is a kind and what was found, without the node.
type finding struct{ kind, what string }

// add records what of kind on node ("" for a finding of no one node).
func (f *findings) add(kind, node, what string) {
	k := finding{kind, what}
	if f.nodes == nil {
		f.nodes = map[finding][]string{}
	}
	ns, seen := f.nodes[k]
	if !seen {
		f.order = append(f.order, k)
	}
	if node != "" {
		ns = append(ns, node)
	}
	f.nodes[k] = ns
}

// anomalies renders the findings in the order first found, each with the
// nodes it was found on.
func (f *findings) anomalies() []Anomaly {
	var out []Anomaly
	for _, k := range f.order {
		d := k.what
		switch ns := f.nodes[k]; len(ns) {
		case 0:
		case 1:
			d += " (node " + ns[0] + ")"
		default:
			d += " (nodes " + strings.Join(ns, ", ") + ")"
		}
		out = append(out, Anomaly{Kind: k.kind, Detail: d})
	}
	return out
}

package familytest

import (
	"strconv"
	"strings"
)

// Labels names the ids a script meets (ids the run drew: dead letters,
// stream queries) prefix+"1", prefix+"2"… in the order it first meets
// them, so that outputs do not depend on the run and later commands can
// name an id by its label.
type Labels[K comparable] struct {
	prefix  string
	text    func(K) string
	labels  map[K]string
	byLabel map[string]K
}

// NewLabels makes the labels of a script; text is how an id is written
// in an output.
func NewLabels[K comparable](prefix string, text func(K) string) *Labels[K] {
	return &Labels[K]{prefix: prefix, text: text, labels: map[K]string{}, byLabel: map[string]K{}}
}

// Of is id's label, the next one when id has none yet.
func (l *Labels[K]) Of(id K) string {
	if s, ok := l.labels[id]; ok {
		return s
	}
	s := l.prefix + strconv.Itoa(len(l.labels)+1)
	l.labels[id], l.byLabel[s] = s, id
	return s
}

// ID is the id labelled label (the zero id when none is).
func (l *Labels[K]) ID(label string) K { return l.byLabel[label] }

// Relabel writes every labelled id of out as its label.
func (l *Labels[K]) Relabel(out string) string {
	for id, s := range l.labels {
		out = strings.ReplaceAll(out, l.text(id), s)
	}
	return out
}

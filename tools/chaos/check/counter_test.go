package check

import "testing"

func TestCheckCounter(t *testing.T) {
	tests := []struct {
		name     string
		answered []int64
		unknown  int
		final    int64
		want     []string
	}{
		{name: "none"},
		{name: "good", answered: []int64{1, 2, 3, 4}, final: 4},
		{name: "good: out of order", answered: []int64{3, 1, 2}, final: 3},
		{name: "good: an unknown took effect", answered: []int64{1, 2, 4}, unknown: 2, final: 4},
		{name: "good: an unknown took effect last", answered: []int64{1, 2}, unknown: 1, final: 3},
		{name: "good: no unknown took effect", answered: []int64{1, 2}, unknown: 3, final: 2},
		{name: "two incrs returned one value", answered: []int64{1, 2, 2}, unknown: 1, final: 3, want: []string{KindCounter}},
		{name: "final below answered", answered: []int64{1, 2, 3}, final: 2, want: []string{KindCounter, KindCounter}},
		{name: "final above answered+unknown", answered: []int64{1, 2}, unknown: 1, final: 4, want: []string{KindCounter}},
		{name: "an incr returned 0", answered: []int64{0, 1}, final: 2, want: []string{KindCounter}},
		{name: "an incr returned more than possible", answered: []int64{1, 5}, unknown: 1, final: 3, want: []string{KindCounter}},
		{name: "final below an answered value", answered: []int64{1, 3}, unknown: 1, final: 2, want: []string{KindCounter}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertKinds(t, CheckCounter(tt.answered, tt.unknown, tt.final), tt.want)
		})
	}
}

func TestCheckPutIfAbsent(t *testing.T) {
	tests := []struct {
		name               string
		won, lost, unknown []string
		final              string
		bad                bool
	}{
		{name: "no attempt"},
		{name: "one won", won: []string{"a"}, lost: []string{"b", "c"}, final: "a"},
		{name: "one won, others unknown", won: []string{"a"}, lost: []string{"b"}, unknown: []string{"c"}, final: "a"},
		{name: "an unknown won", lost: []string{"b"}, unknown: []string{"c", "d"}, final: "d"},
		{name: "all unknown, none landed", unknown: []string{"c"}, final: ""},
		{name: "two won", won: []string{"a", "b"}, final: "a", bad: true},
		{name: "final is not the winner's", won: []string{"a"}, lost: []string{"b"}, final: "b", bad: true},
		{name: "final absent after a win", won: []string{"a"}, final: "", bad: true},
		{name: "all lost", lost: []string{"a", "b"}, final: "a", bad: true},
		{name: "none won, final a loser's", lost: []string{"b"}, unknown: []string{"c"}, final: "b", bad: true},
		{name: "none won, final absent though one lost", lost: []string{"b"}, unknown: []string{"c"}, final: "", bad: true},
		{name: "no attempt, yet a value", final: "z", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			if tt.bad {
				want = []string{KindWinners}
			}
			assertKinds(t, CheckPutIfAbsent(tt.won, tt.lost, tt.unknown, tt.final), want)
		})
	}
}

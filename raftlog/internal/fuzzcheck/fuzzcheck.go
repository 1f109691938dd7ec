// Package fuzzcheck holds the checks the fuzz tests of raftlog's codecs
// and of the queue log's ops share: a decoder that accepted bytes must
// encode them back to themselves, and one that refused them must say so
// with the codec's sentinel error. It is imported by tests only.
package fuzzcheck

import (
	"bytes"
	"errors"
	"testing"
)

// Canonical fails the test unless raw, which decode accepted, encodes
// back to itself (again).
func Canonical(t testing.TB, what string, raw, again []byte) {
	t.Helper()
	if !bytes.Equal(raw, again) {
		t.Fatalf("%s decoded from %x encodes to %x", what, raw, again)
	}
}

// Refusal fails the test unless err, a decoder's refusal, wraps want.
func Refusal(t testing.TB, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("refusal %v does not wrap %q", err, want)
	}
}

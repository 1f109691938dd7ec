package raftlog

import (
	"strings"
	"testing"
)

// The marker round-trips, and the first finding stays.
func TestMarker(t *testing.T) {
	dir := t.TempDir()
	if e, err := ReadMarker(dir); e != nil || err != nil {
		t.Fatalf("no marker: %v %v", e, err)
	}
	first := &CorruptError{Path: "/d/sm/shard-1/000005.sst", Detail: "block checksum mismatch"}
	if err := WriteMarker(dir, first); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarker(dir, &CorruptError{Path: "/other", Detail: "later"}); err != nil {
		t.Fatal(err)
	}
	e, err := ReadMarker(dir)
	if err != nil || e == nil || e.Path != first.Path || e.Detail != first.Detail || !e.Marked {
		t.Fatalf("marker read back %+v %v, want %+v", e, err, first)
	}
	if !strings.Contains(e.Error(), "000005.sst: block checksum mismatch (found by an earlier run") {
		t.Fatalf("marked finding reads %q", e.Error())
	}
}

func TestLooksCorrupt(t *testing.T) {
	for msg, want := range map[string]bool{
		"pebble/table: invalid table 000012 (checksum mismatch at 0/1234)":      true,
		"pebble: corruption: /d/raft/h/00000000000000000001/logdb-3/000007.sst": true,
		"invalid commitTo index 12, lastIndex() 9":                              true,
		"shard 1 is not ready": false,
	} {
		if got := looksCorrupt(msg); got != want {
			t.Errorf("looksCorrupt(%q) = %v", msg, got)
		}
	}
	if p := corruptPath("pebble: corruption: /d/raft/logdb-3/000007.sst (block 2)", "/d/raft"); p != "/d/raft/logdb-3/000007.sst" {
		t.Errorf("corruptPath = %q", p)
	}
}

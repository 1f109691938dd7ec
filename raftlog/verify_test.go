package raftlog_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// storeTemplate is a node's data directory, built once: a one-node
// cluster that took about 6 MB of pushes (past the raft log store's
// memtable, so it holds tables) and stopped.
var storeTemplate struct {
	once sync.Once
	dir  string
	err  error
}

func builtStore(t *testing.T) string {
	t.Helper()
	storeTemplate.once.Do(func() {
		storeTemplate.dir, storeTemplate.err = buildStore()
	})
	if storeTemplate.err != nil {
		t.Fatal(storeTemplate.err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(storeTemplate.dir)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func buildStore() (string, error) {
	dir, err := os.MkdirTemp("", "raftlog-verify")
	if err != nil {
		return "", err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	l.Close()
	h, err := NewHost(Config{NodeID: 1, RaftAddress: addr, DataDir: dir, Members: map[uint64]string{1: addr},
		RTT: 10 * time.Millisecond, TickInterval: -1})
	if err != nil {
		return "", err
	}
	defer h.Close()
	s, err := h.StartShard(1, queuelog.Appliers())
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	payload := []byte(`"` + strings.Repeat("x", 50<<10) + `"`)
	for i := range 120 {
		_, _, err := s.ProposeOp(ctx, (&queuelog.PushOp{Tenant: formatTenant, Items: []queuelog.PushItem{{Queue: "q", Partition: fmt.Sprint("p", i%3),
			TransactionID: fmt.Sprint("t", i), Dedup: true, Payload: payload}}}).Op())
		if err != nil {
			return "", err
		}
	}
	return dir, nil
}

// files lists dir's files whose path matches every part, largest first.
func files(t *testing.T, dir string, parts ...string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			for _, p := range parts {
				if !strings.Contains(path, p) {
					return nil
				}
			}
			out = append(out, path)
		}
		return nil
	})
	slices.SortFunc(out, func(a, b string) int { return int(size(b) - size(a)) })
	return out
}

func size(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func TestVerifyStorePassesACleanStore(t *testing.T) {
	dir := builtStore(t)
	st, err := VerifyStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("verified: %+v", st)
	if st.Tables < 2 || st.Logs < 2 || st.Manifests < 17 || st.Records == 0 {
		t.Fatalf("verified %+v: want tables of both stores, WALs, 17 MANIFESTs and records", st)
	}
	if m, _ := ReadMarker(dir); m != nil {
		t.Fatalf("a clean store got a marker: %v", m)
	}
}

// A bit flipped in each kind of file is found, the finding names the
// file, and the marker keeps it for the next start.
func TestVerifyStoreNamesTheFlippedFile(t *testing.T) {
	for _, tc := range []struct {
		kind  string
		parts []string
		at    func(path string) int64 // where to flip
	}{
		{"state machine table", []string{"/sm/shard-1/", ".sst"}, middle},
		{"active segment", []string{".segments/", ".seg"}, middle},
		{"raft log table", []string{"/raft/", "logdb-", ".sst"}, middle},
		{"raft log WAL", []string{"/raft/", "logdb-", ".log"}, middleOfLog},
		{"raft log MANIFEST", []string{"/raft/", "logdb-", "MANIFEST-"}, firstRecord},
		{"state machine MANIFEST", []string{"/sm/shard-1/", "MANIFEST-"}, firstRecord},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			dir := builtStore(t)
			fs := files(t, dir, tc.parts...)
			if tc.kind == "raft log MANIFEST" || tc.kind == "state machine MANIFEST" {
				fs = currentManifests(t, fs)
			}
			if len(fs) == 0 {
				t.Fatalf("no file of %v in the store", tc.parts)
			}
			path := fs[0]
			flipAt(t, path, tc.at(path))
			_, err := VerifyStore(dir)
			var e *CorruptError
			if !errors.As(err, &e) || e.Path != path || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("flipped %s: VerifyStore = %v, want a finding naming it", path, err)
			}
			t.Logf("%s: %v", tc.kind, e)
			_, err = VerifyStore(dir)
			if !errors.As(err, &e) || !e.Marked || e.Path != path {
				t.Fatalf("a second start: %v, want the marked finding", err)
			}
		})
	}
}

// A WAL cut in its last record, as a crash leaves it, is no finding.
func TestVerifyStoreTakesATornWAL(t *testing.T) {
	dir := builtStore(t)
	wal := files(t, dir, "/raft/", "logdb-", ".log")[0]
	b, _ := os.ReadFile(wal)
	c, err := CheckLog(b, walNum(wal), nil)
	if err != nil || c.Records < 2 {
		t.Fatalf("%s: %+v %v", wal, c, err)
	}
	if err := os.WriteFile(wal, b[:c.End-3], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyStore(dir); err != nil {
		t.Fatalf("a torn WAL: %v", err)
	}
}

func middle(path string) int64 { return size(path) / 2 }

// middleOfLog is a byte inside the WAL's records, records after it.
func middleOfLog(path string) int64 {
	b, _ := os.ReadFile(path)
	c, _ := CheckLog(b, walNum(path), nil)
	return int64(c.End / 2)
}

// firstRecord is a byte of a MANIFEST's first record's payload.
func firstRecord(string) int64 { return 20 }

func walNum(path string) uint32 {
	n, _ := FileNum(filepath.Base(path))
	return uint32(n)
}

// currentManifests keeps the MANIFESTs their stores open, those with
// more than one record first.
func currentManifests(t *testing.T, paths []string) []string {
	var out []string
	for _, p := range paths {
		cur, err := CurrentManifest(filepath.Dir(p))
		if err != nil || cur != filepath.Base(p) {
			continue
		}
		b, _ := os.ReadFile(p)
		if c, _ := CheckLog(b, 0, nil); c.Records > 1 {
			out = append(out, p)
		}
	}
	return out
}

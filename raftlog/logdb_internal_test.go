package raftlog

import (
	"io/fs"
	"log/slog"
	"net"
	"path/filepath"
	"syscall"
	"testing"
)

// TestLogDBReachesDragonboat: the LogDB preset of a Config is the raft log
// store's configuration the NodeHost runs with (tiny when none is named),
// and a fresh node with the tiny one takes little disk.
func TestLogDBReachesDragonboat(t *testing.T) {
	for _, tc := range []struct {
		size LogDBSize
		mib  uint64 // KVWriteBufferSize
	}{{"", 4}, {LogDBTiny, 4}, {LogDBSmall, 16}, {LogDBMedium, 64}, {LogDBLarge, 128}} {
		dir := t.TempDir()
		addr := freeAddr(t)
		h, err := NewHost(Config{NodeID: 1, RaftAddress: addr, DataDir: dir, Members: map[uint64]string{1: addr},
			LogDB: tc.size, Logger: slog.New(slog.DiscardHandler), TickInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		got := h.nh.NodeHostConfig().Expert.LogDB
		if got.KVWriteBufferSize != tc.mib<<20 || got != tc.size.orDefault().config() {
			h.Close()
			t.Fatalf("LogDB %q: the NodeHost runs with write buffers of %d bytes, want %d MiB", tc.size, got.KVWriteBufferSize, tc.mib)
		}
		if tc.size == LogDBTiny {
			if _, err := h.StartShard(1, nil); err != nil {
				h.Close()
				t.Fatal(err)
			}
			if n := diskUsage(t, filepath.Join(dir, "raft")); n > 16<<20 {
				h.Close()
				t.Fatalf("a fresh node's raft log store takes %d bytes of disk with LogDB tiny", n)
			}
		}
		h.Close()
	}
}

func (s LogDBSize) orDefault() LogDBSize {
	if s == "" {
		return DefaultLogDB
	}
	return s
}

// freeAddr returns a 127.0.0.1 address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// diskUsage sums the blocks the files under dir take on disk (what du
// counts: preallocated space included).
func diskUsage(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			n += st.Blocks * 512
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

package raftlog

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lni/dragonboat/v4/logger"
)

// dragonboat takes one logger factory per process, set before the first
// NodeHost; its loggers write to whichever slog.Logger the latest Host
// brought. Its info lines (dozens per start) are dropped. Its warnings log
// at info, but for those of raft (each step of every election), transport
// (each failed dial to a peer that is down) and config (plain TCP between
// peers), which log at debug: the host logs one line per change of
// leader, member or peer instead (events.go).
var (
	dbLoggerOnce sync.Once
	dbLogger     atomic.Pointer[slog.Logger]
)

func setDragonboatLogger(l *slog.Logger) {
	dbLogger.Store(l)
	dbLoggerOnce.Do(func() {
		logger.SetLoggerFactory(func(pkg string) logger.ILogger { return dbLog{pkg: pkg} })
	})
}

type dbLog struct{ pkg string }

func (dbLog) SetLevel(logger.LogLevel) {}
func (dbLog) Debugf(string, ...any)    {}
func (dbLog) Infof(string, ...any)     {}
func (d dbLog) Warningf(format string, args ...any) {
	level := slog.LevelInfo
	switch d.pkg {
	case "raft", "transport", "config":
		level = slog.LevelDebug
	}
	d.emit(level, format, args)
}
func (d dbLog) Errorf(format string, args ...any) { d.emit(slog.LevelError, format, args) }
func (d dbLog) Panicf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if h := dbHost.Load(); h != nil && looksCorrupt(msg) {
		// The raft log store failed a check (a table's or a log's
		// checksum): a finding, not a crash. The broker's OnCorrupt
		// exits; a host without one panics as before.
		h.corrupt(&CorruptError{Path: corruptPath(msg, filepath.Join(h.cfg.DataDir, "raft")), Detail: msg})
	}
	d.emit(slog.LevelError, "%s", []any{msg})
	panic(msg)
}

// dbHost is the latest Host, whose finding a dragonboat panic over a
// corrupted raft log store is (one host per process in the broker).
var dbHost atomic.Pointer[Host]

func watchRaftLogDB(h *Host) { dbHost.Store(h) }

// looksCorrupt says whether a message of the raft log store (old Pebble's
// errors, as dragonboat panics with them) names a failed check, or raft
// found its log shorter than the commit index its peers hold it to
// ("invalid commitTo index"): the node lost entries it had acknowledged,
// as a flip in its last WAL record, read as a torn write, loses them.
func looksCorrupt(msg string) bool {
	m := strings.ToLower(msg)
	for _, w := range []string{"checksum", "corrupt", "invalid chunk", "zeroed chunk", "invalid table", "malformed", "invalid committo index"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// fileInMsg finds a store file's name in a message.
var fileInMsg = regexp.MustCompile(`[^\s"'()]*(\d{6}\.(sst|log)|MANIFEST-\d+)`)

// corruptPath is the file msg names, or dir.
func corruptPath(msg, dir string) string {
	if f := fileInMsg.FindString(msg); f != "" {
		return f
	}
	return dir
}

func (d dbLog) emit(level slog.Level, format string, args []any) {
	if l := dbLogger.Load(); l != nil {
		if !l.Enabled(context.Background(), level) {
			return
		}
		l.Log(context.Background(), level, fmt.Sprintf(format, args...), "lib", "dragonboat/"+d.pkg)
	}
}

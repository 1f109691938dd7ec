package raftlog

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/lni/dragonboat/v4/logger"
)

// dragonboat takes one logger factory per process, set before the first
// NodeHost; its loggers write to whichever slog.Logger the latest Host
// brought. Its info lines (dozens per start) are dropped, and its warnings,
// which are mostly elections, log at info.
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
	d.emit(slog.LevelInfo, format, args)
}
func (d dbLog) Errorf(format string, args ...any) { d.emit(slog.LevelError, format, args) }
func (d dbLog) Panicf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	d.emit(slog.LevelError, "%s", []any{msg})
	panic(msg)
}

func (d dbLog) emit(level slog.Level, format string, args []any) {
	if l := dbLogger.Load(); l != nil {
		l.Log(context.Background(), level, fmt.Sprintf(format, args...), "component", "dragonboat/"+d.pkg)
	}
}

package raftlog

import "github.com/lni/dragonboat/v4/config"

// LogDBSize names one of dragonboat's presets for its raft log store, a
// Pebble of 16 shards. A preset sets the store's memtable (write buffer)
// size, 4 of them per shard at most: that bounds the store's memory, and
// the write-ahead log a shard in use preallocates on disk is about one
// memtable. Larger memtables flush less often, which matters only under
// a write load that the raft log store cannot keep up with.
//
//	size    memtable  memory bound  fresh node's raft log on disk
//	tiny    4 MiB     256 MiB       ~5 MB
//	small   16 MiB    1 GiB         ~18 MB
//	medium  64 MiB    4 GiB         ~71 MB
//	large   128 MiB   8 GiB         ~142 MB (dragonboat's own default)
type LogDBSize string

// The presets of the raft log store, smallest first.
const (
	LogDBTiny   LogDBSize = "tiny"
	LogDBSmall  LogDBSize = "small"
	LogDBMedium LogDBSize = "medium"
	LogDBLarge  LogDBSize = "large"
)

// LogDBSizes lists the presets, smallest first.
var LogDBSizes = []LogDBSize{LogDBTiny, LogDBSmall, LogDBMedium, LogDBLarge}

// DefaultLogDB is the preset of a Config that names none: sized for a
// small deployment (BENCHMARKS.md measures what the larger ones buy).
const DefaultLogDB = LogDBTiny

// config returns dragonboat's settings for the preset.
//
// REQUIRES: s is one of LogDBSizes (Config.Validate checks it).
func (s LogDBSize) config() config.LogDBConfig {
	switch s {
	case LogDBTiny:
		return config.GetTinyMemLogDBConfig()
	case LogDBSmall:
		return config.GetSmallMemLogDBConfig()
	case LogDBMedium:
		return config.GetMediumMemLogDBConfig()
	case LogDBLarge:
		return config.GetLargeMemLogDBConfig()
	}
	panic("raftlog: LogDB size " + string(s) + " is not validated")
}

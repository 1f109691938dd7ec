package raftlog

import (
	"log/slog"

	"github.com/cockroachdb/pebble/v2"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
)

// The state machine's tests that drive it with the queue log's ops are of
// package raftlog_test (queuelog imports raftlog, so a test of package
// raftlog cannot import it); what they reach of the state machine's
// unexported parts is exported below, for tests only.

// StateMachine is the state machine of one shard.
type StateMachine = stateMachine

// NewStateMachine is a state machine over dir, not yet opened, with
// watchers of its own.
func NewStateMachine(shardID, replicaID uint64, dir string, appliers map[OpKind]Applier, log *slog.Logger) *StateMachine {
	return newStateMachine(shardID, replicaID, dir, appliers, log, newWatchers())
}

// The state machine's own keys, its store's settings and format, and the
// helpers of segments.go, verify.go and verify_log.go the tests call.
var (
	MetaKey         = metaKey
	FormatKey       = formatKey
	SegKey          = segKey
	MetaValue       = metaValue
	ReadFormat      = readFormat
	PebbleOptions   = pebbleOptions
	SegmentName     = segmentName
	CheckLog        = checkLog
	FileNum         = fileNum
	CurrentManifest = currentManifest
)

// Constants of the codecs, the store and the dedup filter.
const (
	CommandVersion    = commandVersion
	StoreFormat       = storeFormat
	SnapshotMagic     = snapshotMagic
	DefaultFilterKeys = defaultFilterKeys
)

// DryRun is the Lookup of a dry run of fn, stamped as an entry proposed at
// clock would be.
func DryRun(clock int64, fn func(tx *Txn, at ApplyInfo) (any, error)) any {
	return dryRun{clock: clock, fn: fn}
}

// DB is s's store.
func (s *stateMachine) DB() *pebble.DB { return s.db }

// Dir is s's directory.
func (s *stateMachine) Dir() string { return s.dir }

// Applied is the index of the last entry s applied.
func (s *stateMachine) Applied() uint64 { return s.applied.Load() }

// Stamp is the stamp of the last entry s applied.
func (s *stateMachine) Stamp() int64 { return s.stamp.Load() }

// ClearCache empties s's metadata cache.
func (s *stateMachine) ClearCache() { s.cache.clear() }

// SetSegLimit sets the size past which s starts a new segment (before Open).
func (s *stateMachine) SetSegLimit(limit int64) { s.segLimit = limit }

// SetOnCorrupt sets what s tells of a corruption it finds (before Open).
func (s *stateMachine) SetOnCorrupt(fn func(*CorruptError)) { s.onCorrupt = fn }

// Source reads s's store as a View does.
func (s *stateMachine) Source() PebbleSource { return pebbleSource{s.db} }

// PebbleSource reads a Pebble reader.
type PebbleSource = pebbleSource

// View reads s's store, at stamp 0, records through its segments.
func (s *stateMachine) View() *View { return &View{src: pebbleSource{s.db}, segs: s.segs} }

// RecordBytes is an 'R' value's record bytes, read from s's segments if
// it is a pointer.
func (s *stateMachine) RecordBytes(v []byte) ([]byte, error) {
	return (&View{segs: s.segs}).RecordBytes(v)
}

// ReadSegment reads the record bytes p points to.
func (s *stateMachine) ReadSegment(p storefmt.Ptr) ([]byte, error) { return s.segs.read(p) }

// SegmentFiles lists s's segments.
func (s *stateMachine) SegmentFiles() ([]uint64, error) { return s.segs.list() }

// SegmentPosition is s's active segment and its length.
func (s *stateMachine) SegmentPosition() (uint64, int64) { return s.segs.position() }

// Crash stops s as SIGKILL would: nothing is flushed or synced.
func (s *stateMachine) Crash() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dedup.stop()
	if err := s.db.Close(); err != nil {
		return err
	}
	s.db = nil
	s.segs.close()
	return nil
}

// DedupStats reads s's dedup filter counters.
func (s *stateMachine) DedupStats() DedupStats { return s.dedupStats.load() }

// Dedup is s's dedup filter.
func (s *stateMachine) Dedup() *DedupFilter { return &s.dedup }

// RebuildDedup starts a rebuild of s's dedup filter from its store.
func (s *stateMachine) RebuildDedup() { s.dedup.rebuild(s.db) }

// DedupFilter is the state machine's dedup filter.
type DedupFilter = dedupFilter

// SetOff keeps every lookup a read.
func (d *dedupFilter) SetOff() { d.off = true }

// SetMinKeys sets the least capacity of a filter.
func (d *dedupFilter) SetMinKeys(n uint64) { d.minKeys = n }

// Hold holds every rebuild from now on until Release.
func (d *dedupFilter) Hold() { d.gate = make(chan struct{}) }

// Release lets the rebuilds Hold held go on.
func (d *dedupFilter) Release() { close(d.gate) }

// Building says whether a rebuild is in flight.
func (d *dedupFilter) Building() bool { return d.build != nil }

// WaitBuild waits for the build in flight, if any, to finish.
func (d *dedupFilter) WaitBuild() {
	if b := d.build; b != nil {
		<-b.done
	}
}

// Swap installs a finished build.
func (d *dedupFilter) Swap() error { return d.swap() }

// Built says whether there is a filter.
func (d *dedupFilter) Built() bool { return d.f != nil }

// Added counts the keys added to the filter.
func (d *dedupFilter) Added() uint64 { return d.added }

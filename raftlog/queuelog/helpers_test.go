package queuelog_test

import (
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// The tests' helpers (raftlogtest's queue log helpers), by short names.
const (
	tenant      = raftlogtest.Tenant
	testTimeout = raftlogtest.Timeout
	minStamp    = raftlogtest.MinStamp
)

var (
	item         = raftlogtest.Item
	mid          = raftlogtest.MID
	push         = raftlogtest.Push
	pushAsClient = raftlogtest.PushAsClient
	propose      = raftlogtest.Propose
	readAll      = raftlogtest.ReadAll
	waitRecords  = raftlogtest.WaitRecords
	barrier      = raftlogtest.Barrier
	dump         = raftlogtest.Dump
	sameDump     = raftlogtest.SameDump
	started      = raftlogtest.Started
	configure    = raftlogtest.Configure
	checkAnswer  = raftlogtest.CheckAnswer
)

// read runs fn on s's applied state and fails the test on error.
func read[T any](t testing.TB, s *raftlog.Shard, fn func(v *raftlog.View) (T, error)) T {
	t.Helper()
	return raftlogtest.Read(t, s, fn)
}

// readErr runs one read on s and returns its error too.
func readErr[T any](t testing.TB, s *raftlog.Shard, fn func(v *raftlog.View) (T, error)) (T, error) {
	t.Helper()
	return raftlogtest.ReadErr(t, s, fn)
}

package config_test

import (
	"testing"
	"time"

	"github.com/queen-mq/queen-go/queen/config"
)

// TestDiskMarks: the storage gate's marks default to 85 and 80, the low
// one follows the high one, and 0 turns the watch off.
func TestDiskMarks(t *testing.T) {
	for _, c := range []struct {
		env       map[string]string
		high, low int
		poll      time.Duration
	}{
		{map[string]string{}, 85, 80, time.Second},
		{map[string]string{"QUEEN_RAFT_DISK_HIGH_PCT": "95", "QUEEN_RAFT_DISK_POLL_MS": "200"}, 95, 90, 200 * time.Millisecond},
		{map[string]string{"QUEEN_RAFT_DISK_HIGH_PCT": "90", "QUEEN_RAFT_DISK_LOW_PCT": "70"}, 90, 70, time.Second},
		{map[string]string{"QUEEN_RAFT_DISK_HIGH_PCT": "3"}, 3, 1, time.Second}, // low above 0: a full node can clear itself
		{map[string]string{"QUEEN_RAFT_DISK_HIGH_PCT": "0"}, 0, 0, time.Second},
	} {
		cfg, err := config.Load(env(c.env))
		if err != nil {
			t.Fatalf("%v: %v", c.env, err)
		}
		if cfg.DiskHighPct != c.high || cfg.DiskLowPct != c.low || cfg.DiskPoll != c.poll {
			t.Errorf("%v: marks %d/%d poll %v, want %d/%d %v", c.env, cfg.DiskHighPct, cfg.DiskLowPct, cfg.DiskPoll, c.high, c.low, c.poll)
		}
	}
	wantRefusals(t, []refusal{
		{map[string]string{"QUEEN_RAFT_DISK_HIGH_PCT": "101"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_DISK_HIGH_PCT=101 is outside 0..=100. It is the percent of its disk past which this node reports itself full and the cluster refuses writes that grow the store (507 storage_full); 0 turns the watch off"},
		{map[string]string{"QUEEN_RAFT_DISK_HIGH_PCT": "85.5"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_DISK_HIGH_PCT=85.5 is not a whole number. It is the percent of its disk past which this node reports itself full and the cluster refuses writes that grow the store (507 storage_full); 0 turns the watch off, in 0..=100"},
		{map[string]string{"QUEEN_RAFT_DISK_LOW_PCT": "85"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_DISK_LOW_PCT=85 is outside 1..=84. It is the percent of its disk below which a full node reports itself no longer full; below QUEEN_RAFT_DISK_HIGH_PCT=85"},
		{map[string]string{"QUEEN_RAFT_DISK_POLL_MS": "5"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_DISK_POLL_MS=5 is outside 10..=60000. It is how often this node reads its disk's use, in milliseconds"},
	})
}

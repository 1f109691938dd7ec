package raftlogtest

import (
	"fmt"
	"maps"
	"slices"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// withQueueLog returns the queue log's appliers with appliers added: what
// every shard of a Cluster or a Local runs. An applier for one of the
// queue log's op kinds is refused.
func withQueueLog(appliers map[raftlog.OpKind]raftlog.Applier) (map[raftlog.OpKind]raftlog.Applier, error) {
	all := queuelog.Appliers()
	for _, k := range slices.Sorted(maps.Keys(appliers)) {
		if _, ok := all[k]; ok {
			return nil, fmt.Errorf("raftlogtest: op kind %d is the queue log's", k)
		}
		all[k] = appliers[k]
	}
	return all, nil
}

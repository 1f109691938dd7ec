package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/queen-mq/queen-go/queen/config"
	"github.com/queen-mq/queen-go/raftlog"
)

// exitCorrupt is the exit status of a node that found its stored data
// corrupted, at boot or later: a supervisor can tell it from a crash and
// stop restarting it (systemd's RestartPreventExitStatus=3). Every start
// after it exits with it too, at once, until the node is rebuilt.
const exitCorrupt = 3

// corruptAdvice is the FATAL line's text for a finding: the file, what
// failed, and how the operator rebuilds the node.
func corruptAdvice(cfg *config.Config, e *raftlog.CorruptError) string {
	how := fmt.Sprintf("This node serves nothing until it is rebuilt from its peers: on a healthy node POST /api/v1/raft/members/replace "+
		`{"nodeId":%d,"newNodeId":<an id no node ever had>}, move QUEEN_DATA_DIR=%s aside, and start this node with `+
		"QUEEN_RAFT_NODE_ID=<that id> QUEEN_RAFT_JOIN=true QUEEN_RAFT_ADDRESS=%s", cfg.NodeID, cfg.DataDir, cfg.RaftAddress)
	if !cfg.Join && len(cfg.Members) == 1 {
		how = fmt.Sprintf("A single node has no peers to rebuild it from: restore QUEEN_DATA_DIR=%s from a backup", cfg.DataDir)
	}
	return e.Error() + ". " + how
}

// stopCorrupt is raftlog's OnCorrupt in the broker: one FATAL line, then
// the process exits. Nothing is flushed or closed: every answered write is
// in the raft log already, and the store that failed is not to be
// written again (its marker makes the next start refuse).
func stopCorrupt(cfg *config.Config, log *slog.Logger) func(*raftlog.CorruptError) {
	return func(e *raftlog.CorruptError) {
		log.Error("FATAL: "+corruptAdvice(cfg, e), "component", "raft", "path", e.Path)
		os.Exit(exitCorrupt)
	}
}

// bootFailure is the FATAL line and exit status of an error that stopped
// the boot.
func bootFailure(cfg *config.Config, err error) (string, int) {
	var e *raftlog.CorruptError
	if errors.As(err, &e) {
		return "boot: FATAL: " + corruptAdvice(cfg, e), exitCorrupt
	}
	return "boot: FATAL: " + err.Error(), 1
}

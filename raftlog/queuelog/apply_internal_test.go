package queuelog

import (
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
)

// TestDerivedUUIDNested: ops applied through Txn.Apply in one entry get
// Nested numbers of their own (raftlog's TestTxnApplyNumbers), so the ids
// derived from ApplyInfo differ.
func TestDerivedUUIDNested(t *testing.T) {
	at := raftlog.ApplyInfo{Shard: 1, Index: 9}
	n1, n2 := at, at
	n1.Nested, n2.Nested = 1, 2
	if derivedUUID("partition", at, 0) == derivedUUID("partition", n1, 0) || derivedUUID("partition", n1, 0) == derivedUUID("partition", n2, 0) {
		t.Fatal("nested ops derive the same ids")
	}
}

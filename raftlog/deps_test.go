package raftlog_test

import (
	"testing"

	"github.com/queen-mq/queen-go/testkit/deps"
)

// TestForbiddenImports: raftlog, its tests included, imports neither chi,
// the AWS SDK nor s3sink (DESIGN.md's table of modules).
func TestForbiddenImports(t *testing.T) {
	deps.Check(t, deps.Rule{
		Module: "raftlog",
		// The list is real only if it holds what raftlog does import.
		Real:    []string{"github.com/lni/dragonboat/v4", "github.com/cockroachdb/pebble/v2"},
		NotReal: "go list -deps names neither dragonboat nor pebble",
		Banned:  []string{"github.com/go-chi/", "github.com/aws/", "github.com/queen-mq/queen-go/s3sink"},
	})
}

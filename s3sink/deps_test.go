package s3sink_test

import (
	"testing"

	"github.com/queen-mq/queen-go/testkit/deps"
)

// TestForbiddenImports: s3sink, its tests included, imports none of
// raftlog, kvstore, httpd or queen, nor dragonboat, Pebble or chi
// (DESIGN.md's table of modules): it sees the broker only through its own
// interfaces.
func TestForbiddenImports(t *testing.T) {
	deps.Check(t, deps.Rule{
		Module: "s3sink",
		// The list is real only if it holds what s3sink does import.
		Real:    []string{"github.com/queen-mq/queen-go/lakeformat", "github.com/aws/aws-sdk-go-v2/service/s3"},
		NotReal: "go list -deps names neither lakeformat nor the AWS SDK's S3",
		Banned: []string{"github.com/queen-mq/queen-go/raftlog", "github.com/queen-mq/queen-go/kvstore",
			"github.com/queen-mq/queen-go/httpd", "github.com/queen-mq/queen-go/queen", "github.com/lni/", "github.com/cockroachdb/pebble",
			"github.com/go-chi/"},
	})
}

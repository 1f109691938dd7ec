package s3sink_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestForbiddenImports: s3sink, its tests included, imports none of
// raftlog, kvstore, httpd or queen, nor dragonboat, Pebble or chi
// (DESIGN.md's table of modules): it sees the broker only through its own
// interfaces.
func TestForbiddenImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-test", "-f", "{{.ImportPath}}", "./...").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var deps []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, _, _ := strings.Cut(line, " ") // "p [p.test]" names a package built for a test
		deps = append(deps, path)
	}
	// The list is real only if it holds what s3sink does import.
	if !slices.Contains(deps, "github.com/queen-mq/queen-go/lakeformat") || !slices.Contains(deps, "github.com/aws/aws-sdk-go-v2/service/s3") {
		t.Fatalf("go list -deps names neither lakeformat nor the AWS SDK's S3: %d packages", len(deps))
	}
	for _, d := range deps {
		for _, banned := range []string{"github.com/queen-mq/queen-go/raftlog", "github.com/queen-mq/queen-go/kvstore",
			"github.com/queen-mq/queen-go/httpd", "github.com/queen-mq/queen-go/queen", "github.com/lni/", "github.com/cockroachdb/pebble",
			"github.com/go-chi/"} {
			if strings.HasPrefix(d, banned) {
				t.Errorf("s3sink depends on %s", d)
			}
		}
	}
}

package raftlog_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestForbiddenImports: raftlog, its tests included, imports neither chi,
// the AWS SDK nor s3sink (DESIGN.md's table of modules).
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
	// The list is real only if it holds what raftlog does import.
	if !slices.Contains(deps, "github.com/lni/dragonboat/v4") || !slices.Contains(deps, "github.com/cockroachdb/pebble/v2") {
		t.Fatalf("go list -deps names neither dragonboat nor pebble: %d packages", len(deps))
	}
	for _, d := range deps {
		for _, banned := range []string{"github.com/go-chi/", "github.com/aws/", "github.com/queen-mq/queen-go/s3sink"} {
			if strings.HasPrefix(d, banned) {
				t.Errorf("raftlog depends on %s", d)
			}
		}
	}
}

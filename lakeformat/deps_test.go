package lakeformat_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// forbidden are the import path prefixes lakeformat must never depend on,
// directly or not: it is a standalone library (DESIGN.md, the module table).
var forbidden = []string{
	"github.com/aws/",
	"github.com/lni/dragonboat",
	"github.com/go-chi/chi",
	"github.com/cockroachdb/pebble",
	"github.com/queen-mq/queen-go/",
}

// TestForbiddenImports fails the build if lakeformat, or its tests, import
// the AWS SDK, dragonboat, chi, Pebble or another module of ours.
func TestForbiddenImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-test", "-f", "{{.ImportPath}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var deps []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, _, _ := strings.Cut(line, " ") // "p [q.test]": p as compiled for q's tests
		deps = append(deps, path)
	}
	if !slices.Contains(deps, "github.com/apache/arrow-go/v18/parquet/file") {
		t.Fatalf("go list did not list arrow-go's parquet writer; the check would prove nothing:\n%s", out)
	}
	const self = "github.com/queen-mq/queen-go/lakeformat"
	for _, dep := range deps {
		if dep == self || dep == self+"_test" || dep == self+".test" || strings.HasPrefix(dep, self+"/") {
			continue
		}
		for _, bad := range forbidden {
			if strings.HasPrefix(dep, bad) {
				t.Errorf("lakeformat depends on %s (forbidden: %s*)", dep, bad)
			}
		}
	}
}

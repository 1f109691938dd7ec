package kvstore_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestForbiddenImports keeps DESIGN.md's module table true: kvstore, its
// tests included, never reaches chi, the AWS SDK, s3sink or httpd (the
// HTTP API and its status codes are httpd's). It also requires dragonboat
// in the list, so an empty or broken listing cannot pass.
func TestForbiddenImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-test", "-f", "{{.ImportPath}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	forbidden := []string{"github.com/go-chi/", "github.com/aws/", "github.com/queen-mq/queen-go/s3sink", "github.com/queen-mq/queen-go/httpd"}
	sawDragonboat := false
	for _, pkg := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(pkg, f) {
				t.Errorf("kvstore depends on %s", pkg)
			}
		}
		if strings.HasPrefix(pkg, "github.com/lni/dragonboat/") {
			sawDragonboat = true
		}
	}
	if !sawDragonboat {
		t.Errorf("the dependency list does not name dragonboat; the check is not looking at kvstore:\n%s", out)
	}
}

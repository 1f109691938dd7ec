package httpd

import (
	"os/exec"
	"strings"
	"testing"
)

// TestForbiddenImports keeps DESIGN.md's module table true: httpd imports
// none of our modules but contract (the bounds every module shares) and
// its own packages (httpd/wire), nor
// dragonboat, nor the AWS SDK.
func TestForbiddenImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-test", "-f", "{{.ImportPath}}", "./...").Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	const self = "github.com/queen-mq/queen-go/httpd"
	forbidden := []string{
		"github.com/queen-mq/queen-go/",
		"github.com/lni/dragonboat",
		"github.com/aws/aws-sdk-go",
		"github.com/aws/smithy-go",
	}
	sawChi := false
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// A test variant reads "path [httpd.test]": the path is the first field.
		p := strings.Fields(line)[0]
		if p == "github.com/go-chi/chi/v5" {
			sawChi = true
		}
		if p == self || strings.HasPrefix(p, self+"/") || p == self+".test" || p == "github.com/queen-mq/queen-go/contract" {
			continue
		}
		for _, f := range forbidden {
			if strings.HasPrefix(p, f) {
				t.Errorf("httpd depends on %s", p)
			}
		}
	}
	if !sawChi {
		t.Fatalf("chi is not among the dependencies: the list is not what this test thinks\n%s", out)
	}
}

package lake

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoSinkEngine: the lake's reader builds its store (s3store), names
// the sink's rows (kvdoc) and calls the broker (httpd/client) without the
// sink engine, which a tool has no use for.
func TestNoSinkEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/queen-mq/queen-go/s3sink" {
			t.Fatalf("tools/lake imports the sink engine (%s)", p)
		}
	}
}

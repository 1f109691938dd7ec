package httpd

import (
	"testing"

	"github.com/queen-mq/queen-go/testkit/deps"
)

// TestForbiddenImports keeps DESIGN.md's module table true: httpd imports
// none of our modules but contract (the bounds every module shares), its
// own packages (httpd/wire) and, in its tests, testkit (the helpers tests
// share), nor dragonboat, nor the AWS SDK.
func TestForbiddenImports(t *testing.T) {
	deps.Check(t, deps.Rule{
		Module:  "httpd",
		Real:    []string{"github.com/go-chi/chi/v5"},
		NotReal: "chi is not among the dependencies: the list is not what this test thinks",
		Banned: []string{
			"github.com/queen-mq/queen-go/",
			"github.com/lni/dragonboat",
			"github.com/aws/aws-sdk-go",
			"github.com/aws/smithy-go",
		},
		Allowed: []string{"github.com/queen-mq/queen-go/httpd", "github.com/queen-mq/queen-go/contract", "github.com/queen-mq/queen-go/testkit"},
	})
}

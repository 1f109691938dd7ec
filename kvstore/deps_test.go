package kvstore_test

import (
	"testing"

	"github.com/queen-mq/queen-go/testkit/deps"
)

// TestForbiddenImports keeps DESIGN.md's module table true: kvstore, its
// tests included, never reaches chi, the AWS SDK, s3sink or httpd (the
// HTTP API and its status codes are httpd's). It also requires dragonboat
// in the list, so an empty or broken listing cannot pass.
func TestForbiddenImports(t *testing.T) {
	deps.Check(t, deps.Rule{
		Module:  "kvstore",
		Real:    []string{"github.com/lni/dragonboat/v4"},
		NotReal: "the dependency list does not name dragonboat; the check is not looking at kvstore",
		Banned:  []string{"github.com/go-chi/", "github.com/aws/", "github.com/queen-mq/queen-go/s3sink", "github.com/queen-mq/queen-go/httpd"},
	})
}

package deps_test

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/testkit/deps"
)

// recorder is a testing.TB that keeps what a check reports; its Fatal
// ends the calling goroutine as testing's does.
type recorder struct {
	testing.TB
	errs  []string
	fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatal(args ...any) {
	r.fatal = fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run is Check(rec, rule) in a goroutine of its own, for its Goexit.
func run(t *testing.T, rule deps.Rule) *recorder {
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		deps.Check(rec, rule)
	}()
	<-done
	return rec
}

const self = "github.com/queen-mq/queen-go/testkit"

// TestList: testkit's own listing holds its packages, their test
// binaries as plain paths, and the standard library they use.
func TestList(t *testing.T) {
	got, err := deps.List("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{self + "/deps", self + "/syncbuf", self + "/freeport", "os/exec", "testing"} {
		if !slices.Contains(got, want) {
			t.Fatalf("the listing lacks %s: %v", want, got)
		}
	}
	for _, p := range got {
		if strings.Contains(p, " ") {
			t.Fatalf("%q is not a bare import path", p)
		}
	}
}

// TestCheck: every outcome of a check, with the message a module's test
// fails with.
func TestCheck(t *testing.T) {
	cases := []struct {
		name  string
		rule  deps.Rule
		fatal string   // a prefix of the fatal failure; "" for none
		errs  []string // sorted
	}{
		{name: "clean", rule: deps.Rule{Module: "testkit", Dir: "..", Real: []string{"os/exec"},
			Banned: []string{"github.com/", "golang.org/x/"}, Allowed: []string{self}}},
		{name: "banned", rule: deps.Rule{Module: "testkit", Dir: "..", Patterns: []string{"./syncbuf"},
			Real: []string{"sync"}, Banned: []string{"sync", "github.com/aws/"}},
			errs: []string{"testkit depends on sync", "testkit depends on sync/atomic"}},
		{name: "allowed", rule: deps.Rule{Module: "testkit", Dir: "..", Patterns: []string{"./syncbuf"},
			Real: []string{"sync"}, Banned: []string{self, "sync"}, Allowed: []string{self, "sync"}}},
		{name: "not real", rule: deps.Rule{Module: "testkit", Dir: "..", Real: []string{"os/exec", "github.com/lni/dragonboat/v4"},
			NotReal: "go list -deps names no dragonboat", Banned: []string{"os/"}},
			fatal: "go list -deps names no dragonboat: "},
		{name: "go list fails", rule: deps.Rule{Module: "testkit", Dir: "..", Patterns: []string{"./nosuchdir"}},
			fatal: "go list: exit status 1\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := run(t, c.rule)
			if c.fatal == "" && rec.fatal != "" || !strings.HasPrefix(rec.fatal, c.fatal) {
				t.Fatalf("fatal = %q, want %q...", rec.fatal, c.fatal)
			}
			slices.Sort(rec.errs)
			if !slices.Equal(rec.errs, c.errs) {
				t.Fatalf("errors = %q, want %q", rec.errs, c.errs)
			}
		})
	}
}

// TestNotRealCounts: the failure of a listing that is not the module's
// counts the packages it holds.
func TestNotRealCounts(t *testing.T) {
	got, err := deps.List("..", "./syncbuf")
	if err != nil {
		t.Fatal(err)
	}
	rec := run(t, deps.Rule{Module: "testkit", Dir: "..", Patterns: []string{"./syncbuf"},
		Real: []string{"github.com/aws/aws-sdk-go-v2/service/s3"}, NotReal: "no S3"})
	if want := fmt.Sprintf("no S3: %d packages", len(got)); rec.fatal != want {
		t.Fatalf("fatal = %q, want %q", rec.fatal, want)
	}
}

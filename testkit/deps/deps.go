package deps

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Rule is what one module's dependency test checks.
type Rule struct {
	// Module names the module in a failure: "<Module> depends on <path>".
	Module string
	// Dir is where go list runs; "" is the current directory, the test's
	// package directory.
	Dir string
	// Patterns are the packages listed; none means "./...".
	Patterns []string
	// Real are import paths the listing must hold, each exactly, for it to
	// be the module's: packages the module does import.
	Real []string
	// NotReal is the failure when one of Real is missing; ": N packages"
	// follows it.
	NotReal string
	// Banned are the import path prefixes no listed package may have.
	Banned []string
	// Allowed are packages let through although a banned prefix matches
	// them: each path itself, the packages under it (path/...) and its test
	// binary (path.test).
	Allowed []string
}

// Check lists the packages r.Patterns depend on, their tests included,
// and fails t as r says: at once when go list fails or the listing lacks
// one of r.Real, then once for every listed package of a banned prefix.
func Check(t testing.TB, r Rule) {
	t.Helper()
	deps, err := List(r.Dir, r.Patterns...)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Real {
		if !slices.Contains(deps, p) {
			t.Fatalf("%s: %d packages", r.NotReal, len(deps))
		}
	}
	for _, d := range deps {
		if r.allowed(d) {
			continue
		}
		for _, banned := range r.Banned {
			if strings.HasPrefix(d, banned) {
				t.Errorf("%s depends on %s", r.Module, d)
			}
		}
	}
}

// List returns the import paths of the packages that patterns (none means
// "./...") depend on, their tests included, as go list -deps -test prints
// them in dir: a package built for a test, "p [q.test]", is listed as p.
// Its error reads "go list: <err>", followed, when go list ran and failed,
// by a newline and what it wrote to stderr.
func List(dir string, patterns ...string) ([]string, error) {
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	cmd := exec.Command("go", append([]string{"list", "-deps", "-test", "-f", "{{.ImportPath}}"}, patterns...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		le := &listError{err: err}
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			le.exited, le.stderr = true, string(ee.Stderr)
		}
		return nil, le
	}
	var deps []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, _, _ := strings.Cut(line, " ") // "p [p.test]" names a package built for a test
		deps = append(deps, path)
	}
	return deps, nil
}

// listError is go list's failure with what it wrote to stderr.
type listError struct {
	err    error
	exited bool   // go list ran and exited non-zero
	stderr string // what it wrote to stderr, when it exited
}

func (e *listError) Error() string {
	if e.exited {
		return "go list: " + e.err.Error() + "\n" + e.stderr
	}
	return "go list: " + e.err.Error()
}

func (e *listError) Unwrap() error { return e.err }

// allowed reports whether d is one of r.Allowed, under one, or its test
// binary.
func (r Rule) allowed(d string) bool {
	for _, a := range r.Allowed {
		if d == a || d == a+".test" || strings.HasPrefix(d, a+"/") {
			return true
		}
	}
	return false
}

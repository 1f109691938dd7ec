// Package deps holds Check, the forbidden-imports test that keeps
// DESIGN.md's module table true: a module's deps_test.go lists what the
// module depends on, its tests included, and fails on any package of a
// banned prefix.
//
// It is a helper for our tests only (see package testkit).
//
// Invariants:
//   - The listing is go list -deps -test of the module's packages: what the
//     module's code and its tests build, directly or not.
//   - A check that finds nothing proves nothing, so the listing must hold
//     packages the module is known to import (Rule.Real) before any ban is
//     judged; an empty or broken listing fails.
//   - Failures read as the copies it replaced: "go list: <err>\n<stderr>",
//     "<NotReal>: N packages", "<module> depends on <path>".
//
// Usage, in a module's deps_test.go:
//
//	func TestForbiddenImports(t *testing.T) {
//		deps.Check(t, deps.Rule{
//			Module:  "raftlog",
//			Real:    []string{"github.com/lni/dragonboat/v4"},
//			NotReal: "go list -deps names no dragonboat",
//			Banned:  []string{"github.com/go-chi/", "github.com/aws/"},
//		})
//	}
package deps

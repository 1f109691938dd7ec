// Package peers is the wrapper module that builds the systems
// `make bench-peers` compares queen with: etcd 3.6 and etcd's benchmark
// tool (its `tool` directives in go.mod), beside nats-server and natscli,
// which install.sh `go install`s at pinned versions.
//
// What it owns: the pinned versions of the peers and how they are built,
// into .cache/bin/peers (git-ignored). It holds no code of its own; this
// file is its documentation.
//
// Invariants: it is not in go.work, so the workspace's verify, tidy and
// test loops never touch it, and it is always built with GOWORK=off; a
// binary is rebuilt only when `go version -m` shows another version than
// the one pinned; nothing of it runs in CI (`make check` does not call
// it).
//
// Usage, from the repository root:
//
//	bash tools/peers/install.sh   # or make peers-tools; make bench-peers runs it first
//	.cache/bin/peers/etcd --version
package peers

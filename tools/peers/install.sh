#!/usr/bin/env bash
# install.sh: the peers of make bench-peers, built from the Go module proxy
# into .cache/bin/peers (git-ignored), each skipped when the binary there
# is already of its pinned version (go version -m tells):
#
#   nats-server   NATS_SERVER_VERSION, go install of the server module
#   nats          NATSCLI_VERSION, the natscli binary (its `nats bench`)
#   etcd          the etcd server, built from this wrapper module (go.mod
#                 beside this file pins it: go.etcd.io/etcd/server/v3)
#   benchmark     etcd's benchmark tool, from the same module
#                 (go.etcd.io/etcd/v3/tools/benchmark)
#
# Versions were chosen with `go list -m -versions <module>`: the newest
# nats-server 2.15.x, natscli and etcd 3.6.x tags. A cold build of all four
# takes about 7 minutes on two cores. Run from anywhere:
#
#   bash tools/peers/install.sh
set -euo pipefail
cd "$(dirname "$0")"
NATS_SERVER_VERSION=v2.15.3
NATSCLI_VERSION=v0.5.1
BIN=$(cd ../.. && pwd)/.cache/bin/peers
mkdir -p "$BIN"
# The wrapper module is outside go.work; every module here is built on its
# own go.mod, with the toolchain at hand.
export GOWORK=off GOTOOLCHAIN=local

# has BINARY MODULE VERSION: the binary exists and was built with MODULE
# at VERSION (a "mod" or "dep" line of go version -m).
has() {
	[ -x "$BIN/$1" ] && go version -m "$BIN/$1" 2>/dev/null |
		awk -v m="$2" -v v="$3" '($1 == "mod" || $1 == "dep") && $2 == m && $3 == v { ok = 1 } END { exit !ok }'
}

if has nats-server github.com/nats-io/nats-server/v2 $NATS_SERVER_VERSION; then
	echo "== peers: nats-server $NATS_SERVER_VERSION already in .cache/bin/peers"
else
	echo "== peers: installing nats-server $NATS_SERVER_VERSION into .cache/bin/peers"
	GOBIN=$BIN go install "github.com/nats-io/nats-server/v2@$NATS_SERVER_VERSION"
fi
if has nats github.com/nats-io/natscli $NATSCLI_VERSION; then
	echo "== peers: nats (natscli) $NATSCLI_VERSION already in .cache/bin/peers"
else
	echo "== peers: installing nats (natscli) $NATSCLI_VERSION into .cache/bin/peers"
	GOBIN=$BIN go install "github.com/nats-io/natscli/nats@$NATSCLI_VERSION"
fi

# etcd: the versions go.mod pins (and MVS keeps) are the ones to check.
ETCD_VERSION=$(go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
ETCD_TOOLS_VERSION=$(go list -m -f '{{.Version}}' go.etcd.io/etcd/v3)
if has etcd go.etcd.io/etcd/server/v3 "$ETCD_VERSION"; then
	echo "== peers: etcd $ETCD_VERSION already in .cache/bin/peers"
else
	echo "== peers: building etcd $ETCD_VERSION into .cache/bin/peers"
	go build -o "$BIN/etcd" go.etcd.io/etcd/server/v3
fi
if has benchmark go.etcd.io/etcd/v3 "$ETCD_TOOLS_VERSION"; then
	echo "== peers: etcd benchmark $ETCD_TOOLS_VERSION already in .cache/bin/peers"
else
	echo "== peers: building etcd's benchmark $ETCD_TOOLS_VERSION into .cache/bin/peers"
	go build -o "$BIN/benchmark" go.etcd.io/etcd/v3/tools/benchmark
fi

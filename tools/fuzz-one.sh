#!/usr/bin/env bash
# fuzz-one.sh DIR TARGET FUZZTIME: runs one fuzz target of the package in
# DIR for FUZZTIME (make fuzz calls it for every target).
#
# go test -fuzz sometimes ends with "context deadline exceeded" and no
# failing input: the coordinator's deadline passed while a worker was still
# answering it, on a loaded machine. Nothing was found then (a real failure
# always writes its input to testdata/fuzz and says "Failing input written
# to"), so that one case runs the target once more; any other failure, or
# the same one twice, fails.
set -uo pipefail
dir=$1 target=$2 fuzztime=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for attempt in 1 2; do
	(cd "$dir" && go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" .) 2>&1 | tee "$out"
	status=${PIPESTATUS[0]}
	if [ "$status" -eq 0 ]; then
		exit 0
	fi
	if [ "$attempt" -eq 1 ] && grep -q 'context deadline exceeded' "$out" && ! grep -q 'Failing input written to' "$out"; then
		echo "== fuzz $target: the toolchain's deadline race, nothing found; once more"
		continue
	fi
	exit "$status"
done

#!/usr/bin/env bash
# bench-streams.sh: the official Python client's streaming SDK (queen-mq,
# .cache/client-venv) running the tumbling-window sum pipeline of
# tools/bench_streams.py against real queen processes on this machine, one
# node and then three, a fresh cluster for each size. Each row pre-loads
# RECORDS records over KEYS keys and PARTITIONS partitions into a queue of
# its own, then times the stream from its start until the sink holds the
# right sum of every window (a wrong, missing or duplicated one fails the
# run), at each batch size of BATCHES. Prints one Markdown table for
# BENCHMARKS.md. Run from the repository root: make bench-streams
#
#   RECORDS=100000 KEYS=16 PARTITIONS=4 BATCHES="200 1000" MAX_PARTITIONS=4 bash tools/bench-streams.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/cluster.sh
RECORDS=${RECORDS:-100000}
KEYS=${KEYS:-16}
PARTITIONS=${PARTITIONS:-4}
BATCHES=${BATCHES:-200 1000}
MAX_PARTITIONS=${MAX_PARTITIONS:-4}
PYTHON=${PYTHON:-.cache/client-venv/bin/python}
[ -x "$PYTHON" ] || { echo "no $PYTHON: run make client-venv"; exit 1; }
# The nodes are on 127.0.0.1: no proxy of the environment may stand between
# (httpx reads the proxy variables).
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost

build

echo "$RECORDS records + $PARTITIONS sentinels, $KEYS keys, $PARTITIONS partitions, 10 s windows, max_partitions $MAX_PARTITIONS;" \
	"the client has every node's URL (its default affinity picks the node of each pop), the SDK's streams calls go to node 1"
echo
echo "| nodes | batch_size | cycles | records/cycle | cycles/s | input records/s | seconds | windows checked | SDK CPU s/s | broker CPU s/s |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in 1 3; do
	start "$n"
	for batch in $BATCHES; do
		if ! out=$("$PYTHON" tools/bench_streams.py --urls "$urls" --records "$RECORDS" --keys "$KEYS" \
			--partitions "$PARTITIONS" --batch-size "$batch" --max-partitions "$MAX_PARTITIONS" \
			--pids "$(IFS=,; echo "${pids[*]}")" 2>"$work/driver.err"); then
			echo "$n nodes, batch_size $batch failed:"
			cat "$work/driver.err"
			exit 1
		fi
		echo "| $n | $batch | $(num cycles "$out") | $(num records/cycle "$out") | $(num cycles/s "$out") |" \
			"$(num records/s "$out") | $(num "elapsed s" "$out") | $(num windows "$out") |" \
			"$(num "driver CPU s/s" "$out") | $(num "broker CPU s/s" "$out") |"
	done
	stop
done

#!/usr/bin/env bash
# bench-sink.sh: the embedded S3 sink's throughput on one node, beside
# lakeformat's raw encode rate in the same run. For JSONL+zstd and then
# Parquet+zstd: push RECORDS records over 10 queues of 50 partitions with the
# sink off, restart the node with the sink on from the earliest record
# (versitygw as the bucket), and time until every queue's lake is complete.
# Run from the repository root after make tools: make bench-sink
#
#   RECORDS=1000000 bash tools/bench-sink.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/cluster.sh
RECORDS=${RECORDS:-1000000}
vg=.cache/bin/versitygw
[ -x "$vg" ] || { echo "versitygw is missing: run make tools"; exit 1; }

build
go build -o "$work/sinkbench" ./tools/cmd/queen-sinkbench
(cd lakeformat && go build -o "$work/lakebench" ./bench)

waitup() { ready "$1" || { echo "node at $1 never got ready"; exit 1; }; }

vgport=$(freeport)
mkdir -p "$work/s3/lake"
"$vg" --port "127.0.0.1:$vgport" --access bench --secret bench-secret --quiet posix "$work/s3" &
pids+=($!)

live=()
echo "| format | records | pushed records/s | sink records/s | sink MB/s of payload | objects MB | greatest lag s | lakeformat raw records/s (1 core) | sink / raw |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for fmt in jsonl parquet; do
	port=$(freeport)
	raftport=$(freeport)
	common=(PORT=$port QUEEN_BIND_ADDR=127.0.0.1 QUEEN_DATA_DIR=$work/$fmt QUEEN_RAFT_ADDRESS=127.0.0.1:$raftport
		QUEEN_LOG_FORMAT=json QUEEN_LOG_LEVEL=warn)
	env "${common[@]}" "$work/queen" 2>>"$work/$fmt-load.log" &
	pid=$!
	waitup "http://127.0.0.1:$port"
	through=$("$work/sinkbench" -url "http://127.0.0.1:$port" -phase load -records "$RECORDS" 2>"$work/$fmt-push.txt")
	pushed=$(sed -n 's/.*(\([0-9]*\) records\/s).*/\1/p' "$work/$fmt-push.txt")
	kill -TERM "$pid"; wait "$pid" || true

	env "${common[@]}" QUEEN_S3_EMBEDDED=true QUEEN_S3_QUEUES='*' QUEEN_S3_ENDPOINT="http://127.0.0.1:$vgport" \
		QUEEN_S3_REGION=us-east-1 QUEEN_S3_PATH_STYLE=true QUEEN_S3_BUCKET=lake QUEEN_S3_ACCESS_KEY=bench \
		QUEEN_S3_SECRET_KEY=bench-secret QUEEN_S3_START=earliest QUEEN_S3_FORMAT=$fmt QUEEN_S3_MAX_WINDOW_MS=2000 \
		QUEEN_S3_SAFE_GUARD_MS=500 QUEEN_S3_DISCOVERY_INTERVAL_MS=200 "$work/queen" 2>>"$work/$fmt-sink.log" &
	pid=$!
	pids+=($pid)
	waitup "http://127.0.0.1:$port"
	out=$("$work/sinkbench" -url "http://127.0.0.1:$port" -phase drain -records "$RECORDS" -through "$through")
	kill -TERM "$pid"; wait "$pid" || true

	sinkrate=$(sed -n 's/.*: \([0-9]*\) records\/s, .*/\1/p' <<<"$out")
	mbs=$(sed -n 's/.*records\/s, \([0-9.]*\) MB\/s.*/\1/p' <<<"$out")
	objmb=$(sed -n 's/.*lake, \([0-9.]*\) MB of objects.*/\1/p' <<<"$out")
	lag=$(sed -n 's/.*greatest lag \([0-9.]*\)s.*/\1/p' <<<"$out")
	raw=$(cd lakeformat && taskset -c 0 "$work/lakebench" -records "$RECORDS" -runs 1 -only "$fmt+zstd" | sed -n "s/^| lakeformat $fmt+zstd | \([0-9]*\) .*/\1/p")
	ratio=$(python3 -c "print(f'{$sinkrate/$raw:.2f}')")
	echo "| $fmt+zstd | $RECORDS | $pushed | $sinkrate | $mbs | $objmb | $lag | $raw | $ratio |"

	# Live: the same load with the sink on from the start.
	port=$(freeport)
	raftport=$(freeport)
	env PORT=$port QUEEN_BIND_ADDR=127.0.0.1 QUEEN_DATA_DIR=$work/$fmt-live QUEEN_RAFT_ADDRESS=127.0.0.1:$raftport \
		QUEEN_LOG_FORMAT=json QUEEN_LOG_LEVEL=warn QUEEN_S3_EMBEDDED=true QUEEN_S3_QUEUES=q0,q1,q2,q3,q4,q5,q6,q7,q8,q9 \
		QUEEN_S3_ENDPOINT="http://127.0.0.1:$vgport" QUEEN_S3_REGION=us-east-1 QUEEN_S3_PATH_STYLE=true QUEEN_S3_BUCKET=lake \
		QUEEN_S3_PREFIX=live-$fmt QUEEN_S3_ACCESS_KEY=bench QUEEN_S3_SECRET_KEY=bench-secret QUEEN_S3_START=earliest \
		QUEEN_S3_FORMAT=$fmt QUEEN_S3_MAX_WINDOW_MS=10000 "$work/queen" 2>>"$work/$fmt-live.log" &
	pid=$!
	pids+=($pid)
	waitup "http://127.0.0.1:$port"
	live+=("$fmt+zstd: $("$work/sinkbench" -url "http://127.0.0.1:$port" -phase live -records "$RECORDS" 2>/dev/null | tr '\n' ' ')")
	kill -TERM "$pid"; wait "$pid" || true
done
echo
echo "With the sink on while the load runs (QUEEN_S3_MAX_WINDOW_MS=10000, default guard 5 s):"
for l in "${live[@]}"; do echo "- $l"; done

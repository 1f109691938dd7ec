#!/usr/bin/env bash
# bench-http.sh: queen-bench over HTTP against real queen processes on this
# machine, one node and then three, pushes in batches of 1 and of 100
# records of 200 bytes from 64 connections, and fetches. Prints a Markdown
# table for BENCHMARKS.md. Run from the repository root: make bench-http
#
#   DURATION=10s CONNS=64 bash tools/bench-http.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
CONNS=${CONNS:-64}
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/queen" ./queen/cmd/queen
go build -o "$work/queen-bench" ./tools/cmd/queen-bench

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start N: starts N nodes of a fresh cluster, data in directories of its
# own; sets urls.
run=0
start() {
	local n=$1 members="" raft=() http=()
	run=$((run + 1))
	for i in $(seq 1 "$n"); do
		raft[i]=127.0.0.1:$(freeport)
		http[i]=$(freeport)
		members+="${members:+,}$i=${raft[i]}"
	done
	urls=""
	for i in $(seq 1 "$n"); do
		PORT=${http[i]} QUEEN_BIND_ADDR=127.0.0.1 QUEEN_DATA_DIR="$work/c$n-$run-$i" QUEEN_RAFT_NODE_ID=$i \
			QUEEN_RAFT_MEMBERS=$members QUEEN_LOG_FORMAT=json QUEEN_LOG_LEVEL=warn \
			"$work/queen" 2>>"$work/c$n-$run-$i.log" &
		pids+=($!)
		urls+="${urls:+,}http://127.0.0.1:${http[i]}"
	done
	for i in $(seq 1 "$n"); do
		for _ in $(seq 1 600); do # /health answers 200 once the node has a leader and caught up
			curl -sf "http://127.0.0.1:${http[i]}/health" >/dev/null && break
			sleep 0.1
		done
		curl -sf "http://127.0.0.1:${http[i]}/health" >/dev/null || { echo "node $i never got ready:"; cat "$work/c$n-$run-$i.log"; exit 1; }
	done
}

stop() {
	for p in "${pids[@]}"; do kill -TERM "$p"; done
	for p in "${pids[@]}"; do wait "$p" || true; done
	pids=()
}

echo "| nodes | mode | records/request | connections | records/s | requests/s | p50 ms | p99 ms | errors |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
for n in 1 3; do
	for batch in 1 100; do
		start "$n"
		for mode in push fetch; do
			out=$("$work/queen-bench" -url "$urls" -c "$CONNS" -batch "$batch" -size 200 -duration "$DURATION" -mode "$mode" -queue "b$batch")
			recs=$(sed -n 's/^records\/s \([0-9]*\).*requests\/s \([0-9]*\).*errors \([0-9]*\)$/\1 \2 \3/p' <<<"$out")
			lat=$(sed -n 's/^latency ms p50 \([0-9.]*\).*p99 \([0-9.]*\).*/\1 \2/p' <<<"$out")
			read -r rps qps errs <<<"$recs"
			read -r p50 p99 <<<"$lat"
			echo "| $n | $mode | $batch | $CONNS | $rps | $qps | $p50 | $p99 | $errs |"
		done
		stop
	done
done

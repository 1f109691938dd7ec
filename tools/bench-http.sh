#!/usr/bin/env bash
# bench-http.sh: queen-bench over HTTP against real queen processes on this
# machine, one node and then three, pushes in batches of 1 and of 100
# records of 200 bytes from 64 connections, and fetches; then, on a fresh
# cluster of each size, consumers (16 of them popping batches of 100 of
# PREFILL records pushed beforehand, and acking them) and long polls (8
# pairs of a parked pop and the push that wakes it); then parked pops: 64
# pops waiting on partitions no push touches while 16 connections push,
# with the raft entries applied and the broker's CPU, for this tree's
# binary and, when BASELINE names a git revision, for that revision's too.
# Prints three Markdown tables for BENCHMARKS.md. Run from the repository
# root: make bench-http
#
#   DURATION=10s CONNS=64 PREFILL=100000 BASELINE=a3f9de1 bash tools/bench-http.sh
#   ONLY=parked BASELINE=<rev> bash tools/bench-http.sh     just the parked-pops table
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/cluster.sh
DURATION=${DURATION:-10s}
CONNS=${CONNS:-64}
PREFILL=${PREFILL:-100000}

build queen-bench
if [ -n "${BASELINE:-}" ]; then
	git worktree add -q --detach "$work/baseline" "$BASELINE"
	(cd "$work/baseline" && go build -o "$work/queen-baseline" ./queen/cmd/queen)
	git worktree remove --force "$work/baseline"
fi

if [ "${ONLY:-}" != parked ]; then
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

fi


# row N MODE CONSUMERS RECORDS/POP OUTPUT prints the table row of one
# queen-bench -mode consume or longpoll run. The 204 column counts empty
# pops (consume) or parked pops that timed out though a record came
# (longpoll).
row() {
	local n=$1 mode=$2 consumers=$3 per=$4 out=$5 lat note empty
	lat=$(sed -n '/^latency ms/p' <<<"$out")
	if [ "$mode" = consume ]; then
		empty=$(num "empty pops" "$out")
		note=$(sed -n -e 's/^all \([0-9]*\) prefilled records acked after \(.*\)$/all \1 acked in \2/p' \
			-e 's/^stopped at -duration: \([0-9]*\) of the \([0-9]*\) prefilled.*/\1 of \2 acked by the end/p' <<<"$out")
	else
		empty=$(num "timed-out pops" "$out")
		note="$(num "push's answer" "$(sed -n '/^pop answered before/p' <<<"$out")") of $(num records "$out") pops answered before their push's answer"
	fi
	echo "| $n | $mode | $consumers | $per | $(num records/s "$out") | $(num p50 "$lat") | $(num p90 "$lat") |" \
		"$(num p99 "$lat") | $(num max "$lat") | $empty | $(num errors "$out") | $note |"
}

# Consume: latency is a pop and the ack/batch of what it leased. Long poll:
# latency is from the push's answer to the parked pop's answer (negative
# when the pop is answered first).
if [ "${ONLY:-}" != parked ]; then
echo
echo "| nodes | mode | consumers | records/pop | records/s | p50 ms | p90 ms | p99 ms | max ms | 204 pops | errors | notes |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for n in 1 3; do
	start "$n"
	out=$("$work/queen-bench" -url "$urls" -mode consume -c 16 -batch 100 -size 200 -prefill "$PREFILL" -duration "$DURATION" -queue consume)
	row "$n" consume 16 100 "$out"
	out=$("$work/queen-bench" -url "$urls" -mode longpoll -c 8 -size 200 -duration "$DURATION" -queue longpoll)
	row "$n" longpoll "8 pairs" 1 "$out"
	stop
done
fi

# Parked pops: what pops waiting on other partitions cost a push load.
echo
echo "| binary | nodes | parked pops | records/s | raft entries applied/s | broker CPU s/s | CPU µs/record | pops answered |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
binaries=("$work/queen")
[ -n "${BASELINE:-}" ] && binaries+=("$work/queen-baseline")
for n in 1 3; do
	for parked in 0 64; do
		for bin in "${binaries[@]}"; do # the binaries side by side, row by row
			label=this
			[ "$bin" = "$work/queen-baseline" ] && label="$BASELINE"
			start "$n"
			out=$("$work/queen-bench" -url "$urls" -c 16 -batch 1 -size 200 -duration "$DURATION" -mode push -queue parked -parked "$parked")
			applied=$(num "raft entries applied/s" "$out")
			cpu=$(num "broker CPU s/s" "$out")
			per=$(num "CPU µs/record" "$out")
			answered=$(num "answered during the run" "$out")
			echo "| $label | $n | $parked | $(num records/s "$out") | $applied | $cpu | $per | $answered |"
			stop
		done
	done
done

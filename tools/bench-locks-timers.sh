#!/usr/bin/env bash
# bench-locks-timers.sh: queen-bench's locks and timers modes over HTTP
# against real queen processes on this machine, one node and then three,
# a fresh cluster for each size. Locks: 1, 16 and 64 connections each
# looping acquire and release on a lock name of its own, then 16 on one
# shared name, DURATION each. Timers: STEADY timers due evenly over 2 s,
# then BURST timers all due at the same moment, read back from the queue
# as they fire. Prints two Markdown tables for BENCHMARKS.md. Run from the
# repository root: make bench-locks-timers
#
#   DURATION=10s STEADY=4000 BURST=20000 bash tools/bench-locks-timers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/cluster.sh
DURATION=${DURATION:-10s}
STEADY=${STEADY:-4000}
BURST=${BURST:-20000}

build queen-bench

# line PREFIX OUTPUT prints the line of OUTPUT that starts with PREFIX.
line() { grep -m1 "^$1" <<<"$2" || true; }

locks=() timers=() notes=()
for n in 1 3; do
	start "$n"
	for c in 1 16 64 shared; do
		args=(-c "$c") names="own"
		[ "$c" = shared ] && args=(-c 16 -shared) c=16 names="one shared"
		out=$("$work/queen-bench" -url "$urls" -mode locks "${args[@]}" -duration "$DURATION" -queue locks)
		lat=$(line "latency ms" "$out")
		locks+=("| $n | $names | $c | $(num pairs/s "$out") | $(num requests/s "$out") | $(num p50 "$lat") | $(num p99 "$lat") |\
 $(num "refused acquires" "$out") | $(num errors "$out") |")
		first=$(line "first error" "$out")
		[ -n "$first" ] && notes+=("$n-node, locks $names, $c connections: $first")
	done
	# Steady: due evenly over 2 s from 2 s on. Burst: all due 6 s after
	# the start, once scheduling (4 connections, 256 a call) is over.
	for kind in steady burst; do
		if [ "$kind" = steady ]; then
			count=$STEADY args=(-delay 2s -spread 2s) due="evenly over 2 s"
		else
			count=$BURST args=(-delay 6s) due="at once"
		fi
		out=$("$work/queen-bench" -url "$urls" -mode timers -c 4 -timers "$count" "${args[@]}" -queue "t-$kind")
		fire=$(line "fire delay" "$out")
		wall=$(line "wall delay" "$out")
		sched=$(line scheduled "$out")
		bad=$(line early "$out")
		[ "$kind" = burst ] && due="at once (span $(num span "$sched") s)"
		timers+=("| $n | $count | $due | $(num timers/s "$(line timers/s "$out")") | $(num "fire entries" "$out") |\
 $(num p50 "$fire") | $(num p99 "$fire") | $(num max "$fire") | $(num p50 "$wall") | $(num p99 "$wall") | $(num max "$wall") |\
 $(num early "$bad") | $(num twice "$bad") | $(num missing "$bad") |")
		while IFS= read -r l; do notes+=("$n-node, timers $kind: $l"); done < <(grep -E '^(timer |[0-9]+ timers had not)' <<<"$out" || true)
		notes+=("$n-node, timers $kind: $sched; $(line "scheduling ended" "$out")")
	done
	stop
done

echo "| nodes | lock names | connections | pairs/s | requests/s | p50 ms | p99 ms | refused acquires | errors |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${locks[@]}"
echo
echo "| nodes | timers | due | fired/s | fire entries | fire delay p50 ms | p99 ms | max ms | wall delay p50 ms | p99 ms | max ms | early | twice | missing |"
echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${timers[@]}"
echo
printf -- '- %s\n' "${notes[@]}"

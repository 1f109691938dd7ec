#!/usr/bin/env bash
# bench-peers.sh: queen beside NATS JetStream and etcd, in one run on this
# machine, each on free 127.0.0.1 ports in the scratch directory, one
# system at a time, a fresh cluster (1 node, then 3) for every row, every
# process stopped by its pid. Prints one Markdown table of rates and of
# ours over the peer's. Run from the repository root: make bench-peers
# (which first builds the peers into .cache/bin/peers, tools/peers/install.sh).
#
# The rows, and the load each side gets (200-byte records and values):
#
#   push batched   ours: queen-bench -mode push, CONNS (64) connections each
#                  pushing batches of BATCH (100) records, for DURATION.
#                  NATS: nats bench js pub async, NATS_PUBS (16) publishers
#                  with NATS_BATCH (500) messages in flight each, to a file
#                  stream of R1 or R3 (the earlier measurement's shape).
#   push single    ours: one record per push from CONNS connections.
#                  NATS: nats bench js pub sync from CONNS publishers.
#                  Both push rows run for ours with the JSON body and with
#                  -body binary; where queen-bench does not know -body (it
#                  exits 2) the binary cells are n/a.
#   KV put         ours: queen-bench -mode kvput, CONNS connections, one put
#                  per call to one of 10000 keys. etcd: benchmark put,
#                  CONNS clients on CONNS gRPC connections, 10000 keys.
#   KV get (lin.)  ours: queen-bench -mode kvget (keys put first, then
#                  linearizable GETs). etcd: benchmark range
#                  --consistency=l of one key put first.
#   pop+ack        ours: queen-bench -mode consume, CONSUMERS (16) consumers
#                  popping batches of 100 of PREFILL (100000) records pushed
#                  first, one ack/batch per pop. NATS: PREFILL messages
#                  published first, then nats bench js fetch, CONSUMERS
#                  clients of one durable pull consumer, batches of 100,
#                  --acks explicit (each message acked, not waited for).
#
# Every write is fsynced before it is answered, on every side: ours always
# (on a majority), NATS with `sync_interval: always` in its jetstream
# block, etcd by default (its WAL is fsynced before a commit is answered;
# only --unsafe-no-fsync turns that off, and it is not set). The peers'
# runs are counts of messages, not durations: a short first run measures
# the rate, and the counted run is sized to DURATION (a first run that
# already took half of DURATION is kept as the figure).
#
#   DURATION=10s CONNS=64 PREFILL=100000 NODES="1 3" bash tools/bench-peers.sh
#   ROWS=kv bash tools/bench-peers.sh          only some rows: push,single,kv,pop
#   PROFILE=1 bash tools/bench-peers.sh        also perf over the 3-node batched JSON push
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/cluster.sh
DURATION=${DURATION:-5s}
CONNS=${CONNS:-64}
BATCH=${BATCH:-100}
SIZE=200
NATS_PUBS=${NATS_PUBS:-16}
NATS_BATCH=${NATS_BATCH:-500}
CONSUMERS=${CONSUMERS:-16}
PREFILL=${PREFILL:-100000}
NODES=${NODES:-1 3}
ROWS=${ROWS:-push,single,kv,pop}
PROFILE=${PROFILE:-0}
PEERS=$PWD/.cache/bin/peers
secs=${DURATION%s}
case $secs in *[!0-9]* | '') echo "DURATION=$DURATION: give whole seconds, like 5s" >&2; exit 2 ;; esac

for b in nats-server nats etcd benchmark; do
	[ -x "$PEERS/$b" ] || { echo "$PEERS/$b is missing: run bash tools/peers/install.sh (make bench-peers does)" >&2; exit 1; }
done
build queen-bench
# Does this queen-bench know -body? An unknown flag exits 2 before -h is
# read; a known one lets -h print the usage and exit 0.
binary_ok=1
"$work/queen-bench" -mode push -body binary -h >/dev/null 2>&1 || binary_ok=0
nats_version=$("$PEERS/nats-server" --version | sed 's/.*v//')
etcd_version=$("$PEERS/etcd" --version | sed -n 's/^etcd Version: //p')

want() { [[ ",$ROWS," == *",$1,"* ]]; }

# waitfor URL PATTERN WHAT: polls URL until its answer holds PATTERN (10 s
# at most), or prints WHAT's log and stops the run.
waitfor() {
	local url=$1 pattern=$2 log=$3
	for _ in $(seq 1 100); do
		curl -s "$url" 2>/dev/null | grep -q "$pattern" && return 0
		sleep 0.1
	done
	echo "$url never answered $pattern; its log:" >&2
	cat "$log" >&2
	exit 1
}

# nats_start N: N nats-servers (a cluster when N > 1), JetStream on with
# sync_interval: always; sets nats_url and nc, the nats bench js command
# line against them (a minute for each answer: an fsync per message is slow).
nats_start() {
	local n=$1 i j client=() http=() route=() routes
	run=$((run + 1))
	for i in $(seq 1 "$n"); do
		client[i]=$(freeport)
		http[i]=$(freeport)
		route[i]=$(freeport)
	done
	nats_url=""
	for i in $(seq 1 "$n"); do
		local dir=$work/nats-$run-$i
		mkdir -p "$dir"
		{
			echo "server_name: n$i"
			echo "listen: 127.0.0.1:${client[i]}"
			echo "http: 127.0.0.1:${http[i]}"
			echo "jetstream { store_dir: \"$dir/js\", sync_interval: always }"
			if [ "$n" -gt 1 ]; then
				routes=""
				for j in $(seq 1 "$n"); do routes+="${routes:+, }nats-route://127.0.0.1:${route[j]}"; done
				echo "cluster { name: bench, listen: 127.0.0.1:${route[i]}, routes: [$routes] }"
			fi
		} >"$dir/nats.conf"
		"$PEERS/nats-server" -c "$dir/nats.conf" 2>>"$dir/log" >&2 &
		pids+=($!)
		nats_url+="${nats_url:+,}nats://127.0.0.1:${client[i]}"
	done
	# /healthz answers ok once JetStream is up and, in a cluster, has its meta leader
	for i in $(seq 1 "$n"); do waitfor "http://127.0.0.1:${http[i]}/healthz" '"ok"' "$work/nats-$run-$i/log"; done
	nc=("$PEERS/nats" -s "$nats_url" --timeout 60s bench js)
}

# etcd_start N: an etcd cluster of N members; sets etcd_eps (host:port,
# comma-separated) and etcd_url (the first member's client URL).
etcd_start() {
	local n=$1 i client=() peer=() cluster=""
	run=$((run + 1))
	for i in $(seq 1 "$n"); do
		client[i]=$(freeport)
		peer[i]=$(freeport)
		cluster+="${cluster:+,}e$i=http://127.0.0.1:${peer[i]}"
	done
	etcd_eps=""
	for i in $(seq 1 "$n"); do
		"$PEERS/etcd" --name "e$i" --data-dir "$work/etcd-$run-$i" --log-level warn \
			--listen-client-urls "http://127.0.0.1:${client[i]}" --advertise-client-urls "http://127.0.0.1:${client[i]}" \
			--listen-peer-urls "http://127.0.0.1:${peer[i]}" --initial-advertise-peer-urls "http://127.0.0.1:${peer[i]}" \
			--initial-cluster "$cluster" --initial-cluster-state new --initial-cluster-token "bench-$run" \
			2>>"$work/etcd-$run-$i.log" >&2 &
		pids+=($!)
		etcd_eps+="${etcd_eps:+,}127.0.0.1:${client[i]}"
	done
	etcd_url=http://127.0.0.1:${client[1]}
	for i in $(seq 1 "$n"); do waitfor "http://127.0.0.1:${client[i]}/health" '"health":"true"' "$work/etcd-$run-$i.log"; done
}

# sized FIRST CMD...: runs CMD with the count FIRST in place of @N@ and,
# unless that took half of DURATION already, again with the count its rate
# makes last DURATION. Sets peer to the rate (per second) of the run it
# keeps. CMD's output must hold one rate, which rate_of reads. (sized and
# ours set variables rather than print: in a $(...) subshell the run
# counter of the data directories would not move on.)
sized() {
	local n=$1 t0 t1 out rate took
	shift
	t0=$EPOCHREALTIME
	out=$("${@//@N@/$n}" 2>&1) || { echo "failed: ${*//@N@/$n}:" >&2; echo "$out" >&2; exit 1; }
	t1=$EPOCHREALTIME
	rate=$(rate_of "$out")
	took=$(python3 -c "print(int(($t1 - $t0) * 2 >= $secs))")
	if [ "$took" = 0 ]; then
		n=$(python3 -c "print(max($n, int($rate * $secs)))")
		out=$("${@//@N@/$n}" 2>&1) || { echo "failed: ${*//@N@/$n}:" >&2; echo "$out" >&2; exit 1; }
		rate=$(rate_of "$out")
	fi
	peer=$rate
}

# rate_of OUTPUT: the rate in an output of nats bench (its aggregated
# msgs/sec) or etcd's benchmark (Requests/sec).
rate_of() {
	sed -n -e 's/.*aggregated stats: \([0-9,.]*\) msgs\/sec.*/\1/p' -e 's/^ *Requests\/sec:[[:space:]]*\([0-9.]*\).*/\1/p' <<<"$1" |
		tr -d , | awk 'NR == 1 { printf "%.0f", $1 }'
}

# ours N ARGS...: a fresh queen cluster of N nodes, one queen-bench run of
# ARGS; sets mine to its records/s (n/a when queen-bench refuses a flag:
# it exits 2).
ours() {
	local n=$1 out line rc=0
	shift
	if [[ " $* " == *" -body binary "* && $binary_ok = 0 ]]; then
		mine=n/a # this queen-bench has no -body: no cluster to start
		return
	fi
	start "$n"
	out=$("$work/queen-bench" -url "$urls" -size $SIZE "$@" 2>&1) || rc=$?
	stop
	if [ "$rc" = 2 ]; then
		mine=n/a
		return
	elif [ "$rc" != 0 ]; then
		echo "queen-bench $* failed:" >&2
		echo "$out" >&2
		exit 1
	fi
	line=$(sed -n '/^records\/s /p' <<<"$out") # records/s N  requests/s N  errors N
	[ "$(num errors "$line")" = 0 ] || echo "queen-bench $*: $line" >&2
	mine=$(num records/s "$line")
}

# row WORKLOAD N PEER PEER-RATE OURS-RATE prints one table row.
row() {
	local ratio=n/a
	if [[ $4 =~ ^[0-9]+$ && $5 =~ ^[0-9]+$ && $4 -gt 0 ]]; then
		ratio=$(python3 -c "print(f'{$5 / $4:.2f}×')")
	fi
	echo "| $1 | $2 | $3 | $4 | $5 | $ratio |"
}

nats_label() { echo "NATS $nats_version R$1 (\`sync_interval: always\`)"; }
etcd_label() { echo "etcd $etcd_version, $1 member$([ "$1" -gt 1 ] && echo s) (WAL fsync per commit, the default)"; }

# The machine is shared: its load, beside the table (on stderr), says how
# quiet it was.
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
perfpid=""
trap 'echo "load average at the end: $(cut -d" " -f1-3 /proc/loadavg)" >&2
[ -z "$perfpid" ] || kill -INT "$perfpid" 2>/dev/null || true
cleanup' EXIT
echo "| workload | nodes | peer (its fsync setting) | peer rate /s | ours rate /s | ours/peer |"
echo "|---|---:|---|---:|---:|---:|"
for n in $NODES; do
	if want push; then
		nats_start "$n"
		sized $((NATS_PUBS * NATS_BATCH)) "${nc[@]}" pub async --create --purge --replicas "$n" --storage file \
			--clients "$NATS_PUBS" --batch "$NATS_BATCH" --msgs @N@ --size $SIZE --no-progress bench.push
		stop
		for body in json binary; do
			flag=()
			[ $body = binary ] && flag=(-body binary)
			ours "$n" -mode push "${flag[@]}" -c "$CONNS" -batch "$BATCH" -duration "$DURATION" -queue pb
			row "push batched ($CONNS conns × $BATCH; NATS $NATS_PUBS × $NATS_BATCH async), ${body^^} body" \
				"$n" "$(nats_label "$n")" "$peer" "$mine"
		done
	fi
	if want single; then
		nats_start "$n"
		sized $((CONNS * 10)) "${nc[@]}" pub sync --create --purge --replicas "$n" --storage file \
			--clients "$CONNS" --msgs @N@ --size $SIZE --no-progress bench.single
		stop
		for body in json binary; do
			flag=()
			[ $body = binary ] && flag=(-body binary)
			ours "$n" -mode push "${flag[@]}" -c "$CONNS" -batch 1 -duration "$DURATION" -queue ps
			row "push single ($CONNS clients, 1 a call; NATS sync publish), ${body^^} body" \
				"$n" "$(nats_label "$n")" "$peer" "$mine"
		done
	fi
	if want kv; then
		etcd_start "$n"
		sized 2000 "$PEERS/benchmark" --endpoints="$etcd_eps" --conns="$CONNS" --clients="$CONNS" \
			put --key-size=8 --val-size=$SIZE --key-space-size=10000 --total=@N@
		stop
		ours "$n" -mode kvput -c "$CONNS" -keys 10000 -duration "$DURATION" -queue bench
		row "KV put ($CONNS clients, one put a call, 10000 keys)" "$n" "$(etcd_label "$n")" "$peer" "$mine"

		etcd_start "$n"
		# the key the reads read: a 200-byte value, through etcd's JSON gateway
		value=$(head -c $SIZE /dev/zero | tr '\0' x | base64 -w0)
		curl -sf -X POST "$etcd_url/v3/kv/put" -d "{\"key\":\"$(printf bench-key | base64)\",\"value\":\"$value\"}" >/dev/null
		sized 5000 "$PEERS/benchmark" --endpoints="$etcd_eps" --conns="$CONNS" --clients="$CONNS" \
			range bench-key --consistency=l --total=@N@
		stop
		ours "$n" -mode kvget -c "$CONNS" -keys 10000 -duration "$DURATION" -queue bench
		row "KV get, linearizable ($CONNS clients; etcd one key, ours 10000)" "$n" "$(etcd_label "$n")" "$peer" "$mine"
	fi
	if want pop; then
		nats_start "$n"
		"${nc[@]}" pub async --create --purge --replicas "$n" --storage file --clients "$NATS_PUBS" \
			--batch "$NATS_BATCH" --msgs "$PREFILL" --size $SIZE --no-progress bench.pop >/dev/null 2>&1
		out=$("${nc[@]}" fetch --clients "$CONSUMERS" --batch 100 --acks explicit --msgs "$PREFILL" --size $SIZE --no-progress 2>&1)
		peer=$(rate_of "$out")
		stop
		ours "$n" -mode consume -c "$CONSUMERS" -batch 100 -prefill "$PREFILL" -duration "$DURATION" -queue pop
		row "pop+ack ($CONSUMERS consumers, batches of 100 of $PREFILL; NATS pull, explicit acks)" \
			"$n" "$(nats_label "$n")" "$peer" "$mine"
	fi
done

# The profile: perf over the whole machine while 3 nodes take the batched
# JSON push, then where the CPU went by command and, within queen, by
# function (Go's frame pointers give perf the Go symbols).
if [ "$PROFILE" = 1 ]; then
	command -v perf >/dev/null || { echo "perf is not installed: no profile" >&2; exit 1; }
	echo
	start 3
	perf record -q -a -g -F 499 -e cpu-clock -o "$work/perf.data" 2>"$work/perf.log" &
	perfpid=$!
	"$work/queen-bench" -url "$urls" -mode push -c "$CONNS" -batch "$BATCH" -size $SIZE -duration "$DURATION" -queue prof | sed -n '/records\/s/p'
	kill -INT "$perfpid"
	wait "$perfpid" || true
	perfpid=""
	stop
	# each report into a file, its first lines by awk: head closing a pipe would
	# fail the run (pipefail)
	report() { perf report -i "$work/perf.data" --stdio -g none "$@" >"$work/report" 2>/dev/null || true; }
	echo "== CPU by command, % of every sample of both cores"
	report --no-children --sort comm
	awk -v n=8 '/%/ && n-- > 0' "$work/report"
	echo "== queen: functions by own CPU (flat), % of queen's samples"
	report --no-children --comms queen --percentage relative --sort sym
	awk -v n=25 '/%/ && n-- > 0' "$work/report"
	echo "== queen: functions by CPU under them (cumulative), % of queen's samples"
	report --children --comms queen --percentage relative --sort sym
	awk -v n=45 '/%/ && n-- > 0' "$work/report"
fi

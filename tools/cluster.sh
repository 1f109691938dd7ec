# cluster.sh: what the bench scripts share. Source it from the repository
# root: it makes the scratch directory work and the array pids, and on exit
# stops every process in pids by its pid and removes work. Set bin (the
# queen binary; build sets it) before calling start.
#
#   build CMD...   builds the broker as $work/queen, sets bin to it, and
#             builds each tools/cmd/CMD as $work/CMD.
#   start N   starts N nodes of a fresh cluster on free 127.0.0.1 ports, data
#             in directories of their own under $work, and waits until each
#             answers /health; sets urls (comma-separated).
#   stop      SIGTERMs the nodes and waits for them.
#   ready URL waits up to 60 s until URL/health answers 200 (the node has a
#             leader and caught up); false when it never does.
#   freeport  prints a free port of 127.0.0.1.
#   num NAME LINE  prints the number that follows "NAME " in LINE.

work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

num() { sed -n "s|.*$1 \(-\{0,1\}[0-9][0-9.]*\).*|\1|p" <<<"$2"; }

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

ready() {
	for _ in $(seq 1 600); do curl -sf "$1/health" >/dev/null && return 0; sleep 0.1; done
	return 1
}

build() {
	go build -o "$work/queen" ./queen/cmd/queen
	local c
	for c in "$@"; do go build -o "$work/$c" "./tools/cmd/$c"; done
	bin=$work/queen
}

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
			"$bin" 2>>"$work/c$n-$run-$i.log" &
		pids+=($!)
		urls+="${urls:+,}http://127.0.0.1:${http[i]}"
	done
	for i in $(seq 1 "$n"); do
		ready "http://127.0.0.1:${http[i]}" || { echo "node $i never got ready:"; cat "$work/c$n-$run-$i.log"; exit 1; }
	done
}

stop() {
	for p in "${pids[@]}"; do kill -TERM "$p"; done
	for p in "${pids[@]}"; do wait "$p" || true; done
	pids=()
}

#!/usr/bin/env bash
# shellcheck disable=SC2015,SC2154  # A && B || fail is meant; image_env and hc are set by eval
# Runs deploy/Dockerfile's build stage without Docker (this machine has the
# docker CLI but no daemon) and checks the binary as the image runs it:
#
#   1. hadolint on the Dockerfile, when .cache/deploy-venv has it
#      (deploy/check.sh installs it; HADOLINT=skip leaves it out);
#   2. tools/cmd/queen-dockerfile reads the Dockerfile, copies the context
#      through .dockerignore and runs the build stage's ARG/ENV/WORKDIR/
#      COPY/RUN lines in a temp dir; it prints the final stage's USER,
#      ENV, VOLUME, EXPOSE, STOPSIGNAL, HEALTHCHECK and ENTRYPOINT;
#   3. the binary is static (debug/elf: no PT_INTERP, no DT_NEEDED; readelf
#      and file agree) and `go version -m` shows CGO_ENABLED=0, -trimpath
#      and the VERSION given;
#   4. it starts as the final stage's USER (setpriv) with the image's ENV,
#      its VOLUME a temp dir owned by that uid, on 127.0.0.1 and free ports;
#      the HEALTHCHECK's command fails before it listens and passes once it
#      is ready, run as that uid too;
#   5. the STOPSIGNAL stops it, exit 0, by pid.
#
# Usage: bash deploy/dockerfile-check.sh   (as root: it switches uid)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VERSION=${VERSION:-check-$(git rev-parse --short HEAD 2>/dev/null || echo none)}
say() { echo "dockerfile-check: $*"; }
fail() { echo "dockerfile-check: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root: the binary is started as the Dockerfile's USER through setpriv"

work=$(mktemp -d /tmp/queen-dockerfile-check.XXXXXX)
pid=""
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

# 1. lint
hadolint=$ROOT/.cache/deploy-venv/bin/hadolint
if [ "${HADOLINT:-}" = skip ]; then
	say "hadolint skipped (HADOLINT=skip)"
elif [ -x "$hadolint" ]; then
	"$hadolint" deploy/Dockerfile || fail "hadolint refuses deploy/Dockerfile"
	say "hadolint $("$hadolint" --version | awk '{print $NF}'): deploy/Dockerfile clean"
else
	fail "no $hadolint: bash deploy/check.sh installs it (or HADOLINT=skip)"
fi

# 2. the build stage, from the Dockerfile
helper=$work/queen-dockerfile
(cd tools && go build -o "$helper" ./cmd/queen-dockerfile)
t0=$(date +%s)
"$helper" build -f deploy/Dockerfile -context . -out "$work/build" -build-arg "VERSION=$VERSION" >"$work/final.env" \
	|| fail "the build stage failed (above)"
say "build stage ran in $(($(date +%s) - t0)) s"
# shellcheck disable=SC1091
. "$work/final.env"
bin=$DF_BINARY
[ -x "$bin" ] || fail "the ENTRYPOINT's file $DF_BINARY_IN_IMAGE ($bin) is not an executable"

# 3. static, and built as the Dockerfile says
"$helper" static "$bin" || fail "not a static binary"
if readelf -lW "$bin" | grep -q INTERP; then fail "readelf shows a program interpreter"; fi
if command -v file >/dev/null; then
	file -b "$bin" | grep -q 'statically linked' || fail "file says: $(file -b "$bin")"
fi
info=$(go version -m "$bin")
for want in "build	CGO_ENABLED=0" "build	-trimpath=true" "path	github.com/queen-mq/queen-go/queen/cmd/queen"; do
	grep -qF -- "$want" <<<"$info" || { echo "$info" >&2; fail "go version -m lacks '$want'"; }
done
# -trimpath keeps -ldflags out of the build info: -s -w shows as no symbol
# table and no DWARF, -X main.version in the broker's log (below).
sections=$(readelf -SW "$bin")
if grep -qE '\.symtab|\.debug_' <<<"$sections"; then fail "the binary keeps a symbol table or DWARF: not built with -s -w"; fi
say "static, CGO_ENABLED=0, -trimpath, no symbol table or DWARF (-s -w)"

# 4. run it as the image would: USER, ENV, VOLUME
uid=${DF_USER%%:*}
gid=${DF_USER#*:}
[ "$gid" != "$DF_USER" ] || gid=$uid
[ "$uid" != 0 ] && [[ $uid =~ ^[0-9]+$ ]] || fail "USER $DF_USER is not a numeric non-root uid"
chown_var=DF_CHOWN_$(echo "$DF_VOLUME" | tr -c 'A-Za-z0-9\n' '_')
[ "${!chown_var:-}" = "$uid:$gid" ] || fail "the VOLUME $DF_VOLUME is not copied --chown=$uid:$gid (it has '${!chown_var:-}')"
[ "$DF_STOPSIGNAL" = SIGTERM ] || fail "STOPSIGNAL is $DF_STOPSIGNAL; the broker drains on SIGTERM"
for p in 6632 6633; do
	grep -qw "$p" <<<"$DF_EXPOSE" || fail "EXPOSE lacks $p"
done
# The image's file system, as far as the broker sees it: its binary where
# the final stage puts it, readable by the uid (mktemp's dir is 0700).
chmod 755 "$work"
image=$work/image
install -D -m 755 "$bin" "$image$DF_BINARY_IN_IMAGE"
bin=$image$DF_BINARY_IN_IMAGE
data=$work/volume
mkdir -p "$data"
chown "$uid:$gid" "$data"
chmod 700 "$data"
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
http_port=$(freeport)
raft_port=$(freeport)
while [ "$raft_port" = "$http_port" ]; do raft_port=$(freeport); done
eval "image_env=($DF_ENV)"
run_env=()
for kv in "${image_env[@]}"; do
	case ${kv%%=*} in
	QUEEN_DATA_DIR) [ "${kv#*=}" = "$DF_VOLUME" ] || fail "QUEEN_DATA_DIR=${kv#*=} is not the VOLUME $DF_VOLUME"
		run_env+=("QUEEN_DATA_DIR=$data") ;;
	QUEEN_RAFT_LISTEN_ADDRESS) run_env+=("QUEEN_RAFT_LISTEN_ADDRESS=127.0.0.1:$raft_port") ;; # loopback here, all interfaces in a container
	*) run_env+=("$kv") ;;
	esac
done
run_env+=("PORT=$http_port" "QUEEN_BIND_ADDR=127.0.0.1" "QUEEN_RAFT_ADDRESS=127.0.0.1:$raft_port" "QUEEN_RAFT_RTT_MS=10")
as_uid() { setpriv --reuid "$uid" --regid "$gid" --clear-groups env -i "${run_env[@]}" "$@"; }
eval "hc=($DF_HEALTHCHECK)"
[ "${hc[0]}" = "$DF_BINARY_IN_IMAGE" ] || fail "the HEALTHCHECK runs ${hc[0]}, not the image's binary $DF_BINARY_IN_IMAGE"
health() { as_uid "$bin" "${hc[@]:1}"; }

if out=$(health 2>&1); then fail "the healthcheck passed with no broker running: $out"; fi
[[ $out == "healthcheck: http://127.0.0.1:$http_port/health: "* ]] || fail "the healthcheck failed, but not with its own line: $out"
say "healthcheck before start: refused as it should: $out"

# Not through as_uid: a function in the background is a subshell, and $!
# would be its pid; setpriv and env exec, so $! is the broker's.
setpriv --reuid "$uid" --regid "$gid" --clear-groups env -i "${run_env[@]}" "$bin" 2>"$work/queen.log" &
pid=$!
deadline=$(($(date +%s) + 60))
until out=$(health 2>&1); do
	kill -0 "$pid" 2>/dev/null || { cat "$work/queen.log" >&2; fail "the broker exited before it was healthy"; }
	[ "$(date +%s)" -lt "$deadline" ] || { cat "$work/queen.log" >&2; fail "not healthy within 60 s: $out"; }
	sleep 0.2
done
say "healthcheck passes: pid $pid healthy on 127.0.0.1:$http_port"
puid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
[ "$puid" = "$uid" ] || fail "the broker runs as uid $puid, not $uid"
grep -q "\"version\":\"$VERSION\"" "$work/queen.log" || fail "the broker's log does not report version $VERSION"
owners=$(find "$data" -mindepth 1 \! -uid "$uid" | head -3)
[ -z "$owners" ] && [ -n "$(ls -A "$data")" ] || fail "the data dir is empty or holds files not of uid $uid: $owners"
say "runs as uid $puid, reports version $VERSION, writes its data as uid $uid"

# 5. the STOPSIGNAL drains it: exit 0
kill -TERM "$pid"
deadline=$(($(date +%s) + 40))
# Until it is gone or a zombie (kill -0 still reaches a zombie).
while [ -e "/proc/$pid" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2>/dev/null; do
	[ "$(date +%s)" -lt "$deadline" ] || { cat "$work/queen.log" >&2; fail "still running 40 s after SIGTERM"; }
	sleep 0.1
done
rc=0
wait "$pid" || rc=$?
pid=""
[ "$rc" = 0 ] || { tail -5 "$work/queen.log" >&2; fail "exit $rc after SIGTERM, want 0"; }
grep -q '"msg":"queen stopped"' "$work/queen.log" || fail "no 'queen stopped' in its log"
say "SIGTERM: drained and exited 0"

# 6. the check refuses a Dockerfile it cannot follow: a build step it does
# not know, or a final stage copying what the build stage did not make.
drift() {
	local name=$1 expr=$2
	sed "$expr" deploy/Dockerfile >"$work/Dockerfile.$name"
	cmp -s deploy/Dockerfile "$work/Dockerfile.$name" && fail "the drift case '$name' changed nothing: its sed no longer matches"
	if out=$("$helper" build -f "$work/Dockerfile.$name" -context . -out "$work/drift-$name" 2>&1 >/dev/null); then
		fail "the drifted Dockerfile '$name' passed"
	fi
	say "refused as it should, $name: $(tail -1 <<<"$out")"
}
drift run-mount 's|^RUN go mod download|RUN --mount=type=cache,target=/root/.cache go mod download|'
drift unknown-step 's|^WORKDIR /src|WORKDIR /src\nADD . .|'
drift other-output 's|-o out/queen |-o out/broker |'
say "ok"

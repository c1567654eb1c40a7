#!/usr/bin/env bash
# bench/forgot.sh: POST /account/forgot for a registered and for an unknown address (issue 14
# item 8, docs/security.md "Forgot-password does the same work for every address").
#
# One `whistle serve --no-worker` (SQLite, a new database, default threads) per build: the
# request's own cost, without the worker's mail lane (which does the registered address's
# work later, apart from the request). bench/forgot_timing.py signs one address up, then
# times BENCH_F_N requests per kind, alternating, after a warm-up, from the access log's
# microseconds and from the client. The per-address limit of mail forms is raised for the run.
# With WHISTLE_BIN_BEFORE set (another build, e.g. the base commit) the same run measures it
# first: before/after. No threshold: the figures go to docs/security.md.
#
# Environment: WHISTLE_BIN, WHISTLE_BIN_BEFORE, BENCH_F_N (280, at most 5,000), BENCH_F_ROUNDS (1).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
BIN=${WHISTLE_BIN:-build/whistle}
BEFORE=${WHISTLE_BIN_BEFORE:-}
N=${BENCH_F_N:-280}
ROUNDS=${BENCH_F_ROUNDS:-1}

say() { echo "bench-forgot: $*" >&2; }
die() {
    say "$*"
    exit 1
}
[ "$N" -ge 1 ] && [ "$N" -le 5000 ] || die "BENCH_F_N: 1 to 5000"
[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 10 ] || die "BENCH_F_ROUNDS: 1 to 10"

TMP=$(mktemp -d /tmp/whistle-benchf.XXXXXX)
PIDS=()
cleanup() {
    local rc=$? p
    trap - EXIT INT TERM
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$TMP"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

RESULTS=$TMP/results.tsv
: >"$RESULTS"
run() { # run BUILD BINARY ROUND
    local build=$1 bin=$2 db=$TMP/$1-$3.db line
    "$bin" migrate --db "$db" >/dev/null
    NODE_PORTS=()
    BIN=$bin start_node "$db" --signup-limit-ip 1000000
    line=$(/usr/bin/python3 bench/forgot_timing.py "${NODE_PORTS[0]}" \
        "$TMP/node-${NODE_PORTS[0]}.log" "$N") || die "$build: the run failed"
    stop_all
    printf '%s\t%s\t%s\n' "$build" "$line" "$(cut -d' ' -f1 /proc/loadavg)" >>"$RESULTS"
    say "$build (round $3): $line"
}

for r in $(seq 1 "$ROUNDS"); do
    if [ -n "$BEFORE" ]; then run before "$BEFORE" "$r"; fi
    run after "$BIN" "$r"
done

echo "\`POST /account/forgot\`, $N requests per kind after 40 of each as a warm-up, alternating a"
echo "registered address and an unknown one of the same length, one at a time on one keep-alive"
echo "connection (bench/forgot.sh). \`whistle serve --no-worker\` on SQLite, default threads;"
echo "server µs from the access log. Everything, the client included, shares $(nproc) cores."
echo
echo "| build | server median µs, registered | unknown | difference | median paired difference | client median µs, registered | unknown | statuses | load (1 min) |"
echo "|---|---:|---:|---:|---:|---:|---:|---|---:|"
while IFS=$'\t' read -r build sreg sunk diff paired creg cunk _n st load; do
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$build" "$sreg" "$sunk" "$diff" \
        "$paired" "$creg" "$cunk" "$st" "$load"
done <"$RESULTS"

#!/usr/bin/env bash
# bench/signins.sh: a public read under a flood of failed sign-ins (issue 14 item 7). bench/run.sh
# runs it at the end and puts its Markdown (stdout) into BENCHMARKS.md; it also runs on its own.
#
# One `whistle serve` (SQLite, the seeded data set of bench/seed.sql, default threads, the
# default argon2id cost of 64 MiB) per build. bench/signin_flood.py measures GET
# /api/v1/incidents?limit=20 one request at a time, idle, then while BENCH_S_SIGNINS failed
# sign-ins (unknown addresses, wrong passwords) arrive from BENCH_S_ADDRS loopback addresses
# (127.0.0.2 …), one request at a time per address. The sign-in limits are raised for the
# run so that every sign-in costs its argon2id verification. With WHISTLE_BIN_BEFORE set
# (another build, e.g. the base commit) the same run measures it too: before/after. The
# issue's target: the flood's p90 within 2x of the idle p90.
#
# Environment: WHISTLE_BIN, WHISTLE_BIN_BEFORE, BENCH_S_SIGNINS (200), BENCH_S_ADDRS (10),
# BENCH_S_INCIDENTS (10000).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
BIN=${WHISTLE_BIN:-build/whistle}
BEFORE=${WHISTLE_BIN_BEFORE:-}
SIGNINS=${BENCH_S_SIGNINS:-200}
ADDRS=${BENCH_S_ADDRS:-10}
N=${BENCH_S_INCIDENTS:-10000}

say() { echo "bench-signins: $*" >&2; }
die() {
    say "$*"
    exit 1
}
command -v sqlite3 >/dev/null 2>&1 || die "missing sqlite3 (make deps-bench)"
[ "$SIGNINS" -ge 1 ] && [ "$SIGNINS" -le 2000 ] || die "BENCH_S_SIGNINS: 1 to 2000"
[ "$ADDRS" -ge 1 ] && [ "$ADDRS" -le 200 ] || die "BENCH_S_ADDRS: 1 to 200"

TMP=$(mktemp -d /tmp/whistle-benchs.XXXXXX)
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
run() { # run BUILD BINARY
    local build=$1 bin=$2 db=$TMP/$1.db line
    "$bin" migrate --db "$db" >/dev/null
    sqlite3 -bail "$db" ".parameter set @n $N" ".read $ROOT/bench/seed.sql" >/dev/null
    BIN=$bin start_node "$db" --signin-limit-ip 1000000 --signin-limit-account 100000
    line=$(/usr/bin/python3 bench/signin_flood.py "${NODE_PORTS[0]}" "$SIGNINS" "$ADDRS") ||
        die "$build: the flood failed"
    stop_all
    printf '%s\t%s\n' "$build" "$line" >>"$RESULTS"
    say "$build: $line"
}

if [ -n "$BEFORE" ]; then run before "$BEFORE"; fi
run after "$BIN"

echo "\`GET /api/v1/incidents?limit=20\`, one request at a time on one keep-alive connection:"
echo "400 reads idle, then reads for as long as $SIGNINS failed sign-ins (unknown addresses, wrong"
echo "passwords; argon2id at the default 64 MiB) arrive from $ADDRS loopback addresses, one at a"
echo "time per address, in a process apart from the reader's (bench/signin_flood.py)."
echo "\`whistle serve --no-worker\` on SQLite with $N"
echo "incidents, default threads (one per core) and, where the build has it, the default"
echo "password pool (half the cores, queue 64); sign-in limits raised so that every sign-in"
echo "hashes. Everything, the clients included, shares $(nproc) cores."
echo
echo "| build | idle p50 ms | idle p90 ms | flood p50 ms | flood p90 ms | flood p99 ms | p90 flood/idle | reads in flood | flood s | sign-ins/s | sign-in statuses |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
while IFS=$'\t' read -r build ip50 ip90 _ip99 fp50 fp90 fp99 nreads secs rate st; do
    ratio=$(awk -v a="$fp90" -v b="$ip90" 'BEGIN { if (b == 0) print "n/a"; else printf "%.1f", a / b }')
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$build" "$ip50" "$ip90" \
        "$fp50" "$fp90" "$fp99" "$ratio" "$nreads" "$secs" "$rate" "$st"
done <"$RESULTS"

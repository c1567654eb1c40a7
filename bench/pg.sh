#!/usr/bin/env bash
# bench/pg.sh: the PostgreSQL figures of `make bench` (issue 8). bench/run.sh runs it at the
# end and puts its Markdown (stdout) into BENCHMARKS.md; it also runs on its own.
#
# One data set (bench/seed.sql, BENCH_PG_SCALE incidents) in an SQLite file and, copied row
# for row, in a throwaway PostgreSQL cluster (tests/pgcluster.sh: temporary directory, Unix
# socket). Measured with wrk on loopback, in the same run:
#   sqlite  1 node        whistle serve --db FILE                  (direct)
#   pg      1 node        whistle serve --db postgresql://…        (direct)
#   pg      1 node        the same behind HAProxy
#   pg      3 nodes       three such nodes behind HAProxy (round robin)
# each for GET /api/v1/incidents/{id} and GET /api/v1/incidents?limit=20, with the response
# cache (default) and with --no-cache. Everything shares this machine's cores: 3 nodes on
# the same cores measure the cost of the extra processes and of HAProxy, not a scale-out.
#
# Environment: WHISTLE_BIN, BENCH_PG_SCALE (default 10000), DUR (default 10s), WARMUP
# (default 3s), BENCH_PG_CONNS (default 32), BENCH_THREADS (serve --threads per node).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh" # free_port, start_node, start_haproxy, stop_all, to_ms, bench_copy_to_pg
BIN=${WHISTLE_BIN:-build/whistle}
N=${BENCH_PG_SCALE:-10000}
DUR=${DUR:-10s}
WARMUP=${WARMUP:-3s}
C=${BENCH_PG_CONNS:-32}

say() { echo "bench-pg: $*" >&2; }
die() {
    say "$*"
    exit 1
}

bench_need_pg wrk haproxy sqlite3 curl

TMP=$(mktemp -d /tmp/whistle-benchpg.XXXXXX)
# the cluster's own directory, directly under /tmp: as root the server runs as postgres,
# which must reach it (TMP is private to this user)
PGDIR=$(mktemp -d /tmp/whistle-benchpg-db.XXXXXX)
PIDS=()
cleanup() {
    local rc=$? p
    trap - EXIT INT TERM
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    bash tests/pgcluster.sh stop "$PGDIR" || true
    rm -rf "$TMP" "$PGDIR"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- data: SQLite file, then the same rows in PostgreSQL ---------------------------------

SQLITE_DB=$TMP/bench.db
"$BIN" migrate --db "$SQLITE_DB" >/dev/null
sqlite3 -bail "$SQLITE_DB" ".parameter set @n $N" ".read $ROOT/bench/seed.sql" >/dev/null
"$BIN" migrate --db "$SQLITE_DB" >/dev/null # the seeded incidents' fragments
PG_BASE=$(bash tests/pgcluster.sh start "$PGDIR")
"$PSQL" -X -q -d "$PG_BASE" -c "CREATE DATABASE bench" >/dev/null
PG_DB=${PG_BASE/\/postgres\?//bench?}
"$BIN" migrate --db "$PG_DB" >/dev/null
bench_copy_to_pg "$SQLITE_DB" "$PG_DB" "$TMP/copy.sql"
say "$N incidents in SQLite and PostgreSQL ($BENCH_COPIED_ROWS rows copied)"
ID=$(sqlite3 "$SQLITE_DB" "SELECT id FROM incidents ORDER BY published_at DESC, id DESC LIMIT 1 OFFSET $((N / 2))")

# ---- processes ---------------------------------------------------------------------------

# ---- measuring ---------------------------------------------------------------------------

RESULTS=$TMP/results.tsv
: >"$RESULTS"
measure() { # measure CONFIG CACHE PORT
    local config=$1 cache=$2 port=$3 ep url out rps p50 p99 non2xx
    for ep in single list; do
        if [ "$ep" = single ]; then url="http://127.0.0.1:$port/api/v1/incidents/$ID"; else url="http://127.0.0.1:$port/api/v1/incidents?limit=20"; fi
        [ "$(curl -s -o /dev/null -w '%{http_code}' "$url")" = 200 ] || die "$config: $url is not 200"
        wrk -t2 -c"$C" -d"$WARMUP" "$url" >/dev/null 2>&1 || die "wrk warm-up failed"
        out="$TMP/wrk-$config-$cache-$ep.txt"
        wrk --latency -t2 -c"$C" -d"$DUR" "$url" >"$out" 2>&1 || die "wrk failed: $(cat "$out")"
        rps=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
        p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' "$out")")
        p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$out")")
        non2xx=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$out")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$config" "$cache" "$ep" "$rps" "$p50" "$p99" "${non2xx:-0}" >>"$RESULTS"
        say "$(printf '%-22s %-8s %-6s %10.0f req/s  p50 %7.3f ms  p99 %7.3f ms  non-2xx %s' "$config" "$cache" "$ep" "$rps" "$p50" "$p99" "${non2xx:-0}")"
    done
}

for cache in on off; do
    extra=()
    if [ "$cache" = off ]; then extra=(--no-cache); fi
    start_node "$SQLITE_DB" "${extra[@]}"
    measure "sqlite, 1 node" "$cache" "${NODE_PORTS[0]}"
    stop_all
    start_node "$PG_DB" "${extra[@]}"
    measure "postgresql, 1 node" "$cache" "${NODE_PORTS[0]}"
    start_haproxy
    measure "postgresql, 1 node, haproxy" "$cache" "$HA_PORT"
    stop_all
    for _ in 1 2 3; do start_node "$PG_DB" "${extra[@]}"; done
    start_haproxy
    measure "postgresql, 3 nodes, haproxy" "$cache" "$HA_PORT"
    stop_all
done

# ---- Markdown ----------------------------------------------------------------------------

get() { awk -F'\t' -v c="$1" -v k="$2" -v e="$3" '$1 == c && $2 == k && $3 == e { print $4; exit }' "$RESULTS"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "n/a"; else printf "%.2f", a / b }'; }

echo "$N incidents (bench/seed.sql) in an SQLite file and, row for row, in a throwaway"
echo "PostgreSQL $("$PSQL" --version | awk '{ print $3 }') cluster on the same machine (Unix socket, \`fsync=off\`: reads only)."
echo "\`wrk --latency -t2 -c$C -d$DUR\` after a \`-d$WARMUP\` warm-up; nodes are \`whistle serve --no-worker\`"
echo "(threads: ${BENCH_THREADS:-one per core}); HAProxy $(haproxy -v | awk 'NR == 1 { print $3 }') round robin. The database server, the"
echo "nodes, HAProxy and wrk all share the same $(nproc) cores: three nodes here show the cost of"
echo "the extra processes and the proxy hop, not the scale-out of nodes on their own machines."
echo
echo "| configuration | response cache | request | req/s | p50 ms | p99 ms | non-2xx |"
echo "|---|---|---|---:|---:|---:|---:|"
while IFS=$'\t' read -r config cache ep rps p50 p99 n2; do
    case "$ep" in
    single) req='`GET /api/v1/incidents/{id}`' ;;
    *) req='`GET /api/v1/incidents?limit=20`' ;;
    esac
    printf '| %s | %s | %s | %.0f | %.3f | %.3f | %s |\n' "$config" "$cache" "$req" "$rps" "$p50" "$p99" "$n2"
done <"$RESULTS"
echo
echo "| ratio (req/s) | cache | single | list |"
echo "|---|---|---:|---:|"
for cache in on off; do
    echo "| PostgreSQL / SQLite, 1 node | $cache | $(ratio "$(get "postgresql, 1 node" $cache single)" "$(get "sqlite, 1 node" $cache single)") | $(ratio "$(get "postgresql, 1 node" $cache list)" "$(get "sqlite, 1 node" $cache list)") |"
    echo "| PostgreSQL 3 nodes / 1 node, both behind HAProxy | $cache | $(ratio "$(get "postgresql, 3 nodes, haproxy" $cache single)" "$(get "postgresql, 1 node, haproxy" $cache single)") | $(ratio "$(get "postgresql, 3 nodes, haproxy" $cache list)" "$(get "postgresql, 1 node, haproxy" $cache list)") |"
done

#!/usr/bin/env bash
# bench/writes.sh: the write-path figures of `make bench` (issue 20). bench/run.sh runs it at
# the end and puts its Markdown (stdout) into BENCHMARKS.md; it also runs on its own.
#
# Ballots per second and their latency, measured with wrk (bench/ballots.lua: JSON ballots
# of BENCH_W_VOTERS anonymous voters, each ballot of a voter replacing its previous one) on
#   sqlite  1 node                       whistle serve --db FILE
#   pg      1 node, socket               whistle serve --db postgresql://… (Unix socket)
#   pg      1 node, delay proxy          the same through bench/delayproxy.c, which holds
#                                        every chunk BENCH_W_DELAY_US (500) µs each way
#   pg      3 nodes, delay proxy         three such nodes behind HAProxy (round robin)
# each "spread" (BENCH_W_INCIDENTS incidents, voter k on incident k) and "hot" (everyone on
# one incident), each voter from an address of its own (BENCH_W_ADDRESSES=per-voter, the
# default: X-Forwarded-For from the trusted 127.0.0.1, as behind a load balancer; "one": every
# voter from 127.0.0.1, one hot per-address rate-window row); then agent leads/s (bench/leads.lua,
# 32 keys, the lead quotas raised with --lead-quota-*; where the binary has those options). With WHISTLE_BIN_BEFORE set (another build, e.g. the previous commit) the
# same grid runs for it too, on databases of its own, in the same run: before/after.
# Rate limits are raised for the run (--vote-limit-voter/--vote-limit-ip and the anonymous
# caps per address): the figures are
# the cost of a ballot, not of a refusal. PostgreSQL runs with fsync=off (tests/pgcluster.sh), but
# for the durable rows.
#
# Cached reads during a ballot flood (issue 20 item 5): on the PostgreSQL node on its socket,
# GETs of the JSON of 100 incidents in rotation (wrk -t1 -c8), first quiet, then while a
# ballot flood (wrk -t1 -c2, the same length) runs on every other incident; the share of
# cache hits during the flood from the node's /metrics where the build has it.
# BENCH_W_ONLY=cache runs only that part; BENCH_W_ONLY=sqlite only the SQLite node;
# BENCH_W_ONLY=nodes only the three PostgreSQL nodes behind the delay proxy. Then (unless
# BENCH_W_FSYNC=0, or BENCH_W_ONLY is cache or sqlite) the three nodes on a second cluster
# with fsync on (durable: what group commit costs).
#
# Environment: WHISTLE_BIN, WHISTLE_BIN_BEFORE, BENCH_W_AFTER_FIRST, BENCH_W_ADDRESSES, BENCH_W_VOTERS (2000), BENCH_W_INCIDENTS
# (2000), BENCH_W_DELAY_US (500), BENCH_W_THREADS (serve --threads, 16), BENCH_W_CONNS (32),
# DUR (10s), WARMUP (3s), BENCH_W_PG_ARGS (more serve options for the PostgreSQL nodes: a
# version lease, say). The open-loop rows (bench/openloop.c, fixed rates) follow each
# SQLite node and three-node grid; see measure_open.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
BIN=${WHISTLE_BIN:-build/whistle}
BEFORE=${WHISTLE_BIN_BEFORE:-}
V=${BENCH_W_VOTERS:-2000}
N=${BENCH_W_INCIDENTS:-2000}
DELAY=${BENCH_W_DELAY_US:-500}
THREADS=${BENCH_W_THREADS:-16}
C=${BENCH_W_CONNS:-32}
DUR=${DUR:-10s}
WARMUP=${WARMUP:-3s}
# per-voter: each voter from an address of its own (bench/ballots.lua); one: all from 127.0.0.1
ADDRESSES=${BENCH_W_ADDRESSES:-per-voter}
# more `whistle serve` options for the PostgreSQL nodes only (e.g. --version-lease 5)
read -r -a PG_ARGS <<<"${BENCH_W_PG_ARGS:-}"

say() { echo "bench-writes: $*" >&2; }
die() {
    say "$*"
    exit 1
}

bench_need_pg wrk haproxy sqlite3 curl cc

TMP=$(mktemp -d /tmp/whistle-benchw.XXXXXX)
PGDIR=$(mktemp -d /tmp/whistle-benchw-db.XXXXXX)
# the proxy's socket directory: PostgreSQL's socket name, another directory
PROXYDIR=$(mktemp -d /tmp/whistle-benchw-proxy.XXXXXX)
PIDS=()
PROXY_PID=
cleanup() {
    local rc=$? p
    trap - EXIT INT TERM
    for p in "${PIDS[@]}" $PROXY_PID; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}" $PROXY_PID; do wait "$p" 2>/dev/null || true; done
    bash tests/pgcluster.sh stop "$PGDIR" || true
    if [ -n "${DURABLE_DIR:-}" ]; then
        kill -TERM "$DURABLE_PROXY" 2>/dev/null || true
        bash tests/pgcluster.sh stop "$DURABLE_DIR" || true
        rm -rf "$DURABLE_DIR"
    fi
    rm -rf "$TMP" "$PGDIR" "$PROXYDIR"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cc -O2 -pthread -o "$TMP/delayproxy" bench/delayproxy.c || die "cannot build bench/delayproxy.c"
cc -O2 -o "$TMP/openloop" bench/openloop.c || die "cannot build bench/openloop.c"
PG_BASE=$(bash tests/pgcluster.sh start "$PGDIR")
"$TMP/delayproxy" "$PROXYDIR/.s.PGSQL.5432" "$PGDIR/.s.PGSQL.5432" "$DELAY" &
PROXY_PID=$!

# data DB_NAME BINARY: an SQLite file and a PostgreSQL database of N incidents for BINARY
# (each binary migrates its own: the schemas differ); sets SQ and PG (direct) and PGD (proxy)
data() {
    local name=$1 bin=$2
    SQ=$TMP/$name.db
    "$bin" migrate --db "$SQ" >/dev/null
    sqlite3 -bail "$SQ" ".parameter set @n $N" ".read $ROOT/bench/seed.sql" >/dev/null
    "$bin" migrate --db "$SQ" >/dev/null # the seeded incidents' fragments
    "$PSQL" -X -q -d "$PG_BASE" -c "CREATE DATABASE $name" >/dev/null
    PG=${PG_BASE/\/postgres\?//$name?}
    PGD="postgresql://whistle@/$name?host=$PROXYDIR"
    "$bin" migrate --db "$PG" >/dev/null
    BIN=$bin bench_copy_to_pg "$SQ" "$PG" "$TMP/copy-$name.sql"
    sqlite3 "$SQ" "SELECT slug FROM incidents ORDER BY id LIMIT $N" >"$TMP/spread-$name.txt"
    head -1 "$TMP/spread-$name.txt" >"$TMP/hot-$name.txt"
}

# voters PORT FILE: V anonymous voters (cookie and CSRF token from one incident page each)
voters() {
    /usr/bin/python3 - "$1" "$2" "$V" "$(head -1 "$TMP/spread-$DBNAME.txt")" <<'EOF'
import re, sys, http.client
port, out, n, iid = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
with open(out, "w") as f:
    for _ in range(n):
        conn.request("GET", f"/incidents/{iid}")
        r = conn.getresponse()
        body = r.read().decode()
        cookie = next(h.split(";")[0].split("=", 1)[1] for k, h in r.getheaders()
                      if k.lower() == "set-cookie" and h.startswith("__Host-whistle_voter="))
        csrf = re.search(r'name="csrf" value="([^"]+)"', body).group(1)
        f.write(f"{cookie} {csrf}\n")
EOF
}

RESULTS=$TMP/results.tsv
: >"$RESULTS"
READS=$TMP/reads.tsv
: >"$READS"
measure() { # measure BUILD CONFIG PORT
    local build=$1 config=$2 port=$3 load out rps p99 non2xx
    local vf="$TMP/voters-$build-${config%%,*}.txt"
    [ -s "$vf" ] || voters "$port" "$vf"
    for load in spread hot; do
        out="$TMP/wrk-$build-$config-$load.txt"
        ADDRESSES=$ADDRESSES VOTERS=$vf INCIDENTS=$TMP/$load-$DBNAME.txt wrk -t2 -c"$C" -d"$WARMUP" \
            -s bench/ballots.lua "http://127.0.0.1:$port" >/dev/null 2>&1 || die "wrk warm-up failed"
        ADDRESSES=$ADDRESSES VOTERS=$vf INCIDENTS=$TMP/$load-$DBNAME.txt wrk --latency -t2 -c"$C" -d"$DUR" \
            -s bench/ballots.lua "http://127.0.0.1:$port" >"$out" 2>&1 || die "wrk failed: $(cat "$out")"
        rps=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
        p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$out")")
        non2xx=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$out")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$build" "$config" "$load" "$rps" "$p99" "${non2xx:-0}" \
            "$(cut -d' ' -f1 /proc/loadavg)" >>"$RESULTS"
        say "$(printf '%-7s %-32s %-6s %8.0f ballots/s  p99 %8.3f ms  non-2xx %s' "$build" "$config" "$load" "$rps" "$p99" "${non2xx:-0}")"
    done
}

get() { awk -F'\t' -v b="$1" -v c="$2" -v l="$3" '$1 == b && $2 == c && $3 == l { print $4; exit }' "$RESULTS"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "n/a"; else printf "%.2f", a / b }'; }

# measure_open BUILD CONFIG PORT: ballots at fixed rates (bench/openloop.c, an open loop: each
# ballot is due at its time whether or not the earlier ones were answered, and its latency
# runs from then), C connections, after the closed-loop rows of the same configuration. The
# rates: the issue's targets against this build's SQLite node in this run (0.4 x its spread
# ballots/s, 0.25 x its hot ones), and 0.75 x this configuration's own closed-loop ballots/s
# (near its capacity).
OPEN=$TMP/open.tsv
: >"$OPEN"
measure_open() {
    local build=$1 config=$2 port=$3 load sq max rate kind out
    local vf="$TMP/voters-$build-${config%%,*}.txt"
    for load in spread hot; do
        local rf="$TMP/requests-$build-${config%%,*}-$load.bin"
        [ -s "$rf" ] || /usr/bin/python3 bench/ballot_requests.py "$vf" "$TMP/$load-$DBNAME.txt" \
            "$ADDRESSES" "$rf"
        sq=$(get "$build" "sqlite, 1 node" "$load")
        max=$(get "$build" "$config" "$load")
        for kind in target capacity; do
            case $kind in
            target)
                [ -n "$sq" ] || continue
                rate=$(awk -v s="$sq" -v l="$load" 'BEGIN { printf "%.0f", s * (l == "spread" ? 0.4 : 0.25) }') ;;
            capacity) rate=$(awk -v m="$max" 'BEGIN { printf "%.0f", m * 0.75 }') ;;
            esac
            out="$TMP/open-$build-$config-$load-$kind.txt"
            "$TMP/openloop" "$port" "$rf" "$rate" "${DUR%s}" "$C" "${WARMUP%s}" >"$out" ||
                say "openloop: requests unanswered or broken ($config $load $kind)"
            val() { awk -v k="$1" '$1 == k { print $2 }' "$out"; }
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$build" "$config" "$load" \
                "$kind" "$rate" "$(val rate)" "$(val p50_ms)" "$(val p99_ms)" "$(val p999_ms)" \
                "$(val max_ms)" "$(val non2xx)" "$(val errors)" "$(cut -d' ' -f1 /proc/loadavg)" >>"$OPEN"
            say "$(printf '%-7s %-32s %-6s %-8s %6s/s offered: %8s/s p99 %8s ms  errors %s' "$build" \
                "$config" "$load" "$kind" "$rate" "$(val rate)" "$(val p99_ms)" "$(val errors)")"
        done
    done
}

# keys BINARY DB FILE: LEAD_KEYS agent keys of as many accounts into DB, their secrets to FILE
LEAD_KEYS=32
keys() {
    local i
    : >"$3"
    for i in $(seq 1 "$LEAD_KEYS"); do
        "$1" key create --owner "bench-agent-$i@example.org" --db "$2" --json |
            /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["secret"])' >>"$3"
    done
}

# measure_leads BUILD CONFIG PORT: agent leads/s (bench/leads.lua), every lead accepted
measure_leads() {
    local build=$1 config=$2 port=$3 out rps p99 non2xx
    local kf="$TMP/keys-$DBNAME-${config%%,*}.txt"
    [ -s "$kf" ] || keys "$LEAD_BIN" "$LEAD_DB" "$kf"
    out="$TMP/wrk-$build-$config-leads.txt"
    KEYS=$kf GAME=$LEAD_GAME wrk -t2 -c"$C" -d"$WARMUP" -s bench/leads.lua "http://127.0.0.1:$port" \
        >/dev/null 2>&1 || die "wrk warm-up failed"
    KEYS=$kf GAME=$LEAD_GAME wrk --latency -t2 -c"$C" -d"$DUR" -s bench/leads.lua \
        "http://127.0.0.1:$port" >"$out" 2>&1 || die "wrk failed: $(cat "$out")"
    rps=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
    p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$out")")
    non2xx=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$out")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$build" "$config" leads "$rps" "$p99" "${non2xx:-0}" \
        "$(cut -d' ' -f1 /proc/loadavg)" >>"$RESULTS"
    say "$(printf '%-7s %-32s %-6s %8.0f leads/s    p99 %8.3f ms  non-2xx %s' "$build" "$config" leads "$rps" "$p99" "${non2xx:-0}")"
}

# cache_counts: "hits misses" of the node's response cache (GET /metrics on METRICS_PORT,
# where the build has it); hit_share BEFORE AFTER: the hits' share between two counts
cache_counts() {
    [ -n "${METRICS_PORT:-}" ] || return 0
    curl -s "http://127.0.0.1:$METRICS_PORT/metrics" |
        awk '/^whistle_http_cache_total\{result="hit"\}/ { h = $2 } /^whistle_http_cache_total\{result="miss"\}/ { m = $2 } END { print h + 0, m + 0 }'
}
hit_share() {
    [ -n "$1" ] && [ -n "$2" ] || { echo "n/a"; return; }
    echo "$1 $2" | awk '{ h = $3 - $1; m = $4 - $2; if (h + m > 0) printf "%.1f%%", 100 * h / (h + m); else print "n/a" }'
}

# reads_in_flood BUILD PORT: reads/s of the JSON of READ_SET incidents in rotation, quiet and
# during a ballot flood on the other incidents (bounded: both runs last DUR)
READ_SET=100
reads_in_flood() {
    local build=$1 port=$2 quiet flood ballots vf="$TMP/voters-$1-reads.txt"
    [ -s "$vf" ] || voters "$port" "$vf"
    head -n "-$READ_SET" "$TMP/spread-$DBNAME.txt" >"$TMP/others-$DBNAME.txt"
    tail -n "$READ_SET" "$TMP/spread-$DBNAME.txt" | while read -r slug; do
        echo "/api/v1/incidents/$(sqlite3 "$SQ" "SELECT id FROM incidents WHERE slug = '$slug'")"
    done >"$TMP/read-paths-$DBNAME.txt"
    local url="http://127.0.0.1:$port"
    curl -sf -o /dev/null "$url$(head -1 "$TMP/read-paths-$DBNAME.txt")" || die "GET failed"
    wrk -t1 -c8 -d"$WARMUP" -s bench/rotate.lua "$url" -- "$TMP/read-paths-$DBNAME.txt" \
        >/dev/null 2>&1 || die "wrk warm-up failed"
    wrk -t1 -c8 -d"$DUR" -s bench/rotate.lua "$url" -- "$TMP/read-paths-$DBNAME.txt" \
        >"$TMP/reads-quiet-$build.txt" 2>&1 || die "wrk failed"
    quiet=$(awk '/^Requests\/sec:/ { print $2 }' "$TMP/reads-quiet-$build.txt")
    local h0 h1
    h0=$(cache_counts)
    VOTERS=$vf INCIDENTS=$TMP/others-$DBNAME.txt wrk -t1 -c2 -d"$DUR" -s bench/ballots.lua \
        "$url" >"$TMP/flood-$build.txt" 2>&1 &
    local flood_pid=$!
    sleep 0.5
    wrk -t1 -c8 -d"$DUR" -s bench/rotate.lua "$url" -- "$TMP/read-paths-$DBNAME.txt" \
        >"$TMP/reads-flood-$build.txt" 2>&1 || die "wrk failed"
    wait "$flood_pid" || die "wrk (flood) failed: $(cat "$TMP/flood-$build.txt")"
    flood=$(awk '/^Requests\/sec:/ { print $2 }' "$TMP/reads-flood-$build.txt")
    h1=$(cache_counts)
    ballots=$(awk '/^Requests\/sec:/ { print $2 }' "$TMP/flood-$build.txt")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$build" "$quiet" "$flood" "$ballots" \
        "$(hit_share "$h0" "$h1")" "$(cut -d' ' -f1 /proc/loadavg)" >>"$READS"
    say "$(printf '%-7s reads/s quiet %8.0f, during the flood %8.0f (%6.0f ballots/s)' "$build" "$quiet" "$flood" "$ballots")"
}

grid() { # grid BUILD BINARY
    local build=$1 bin=$2
    DBNAME=$build
    data "$build" "$bin"
    local lim=(--vote-limit-voter 100000 --vote-limit-ip 1000000 --threads "$THREADS"
        --trusted-proxy 127.0.0.1)
    # the anonymous caps per address (issue 14 item 3), where the binary has them
    # (the help is read whole: `grep -q` would end the pipe early, and pipefail fail it)
    local help
    help=$("$bin" serve --help 2>&1 || true)
    case "$help" in *--anon-vote-limit-ip*)
        lim+=(--anon-vote-limit-ip 1000000 --new-voter-limit-ip 1000000) ;;
    esac
    # leads/s where the binary lets the quotas be raised (issue 20 item 7)
    local leads=
    case "$help" in *--lead-quota-minute*)
        leads=1
        lim+=(--lead-quota-minute 1000000 --lead-quota-day 1000000 --lead-quota-global 1000000) ;;
    esac
    LEAD_BIN=$bin
    LEAD_GAME=$(sqlite3 "$SQ" "SELECT id FROM games ORDER BY id LIMIT 1")
    if [ "${BENCH_W_ONLY:-}" != cache ] && [ "${BENCH_W_ONLY:-}" != nodes ]; then
        BIN=$bin start_node "$SQ" "${lim[@]}"
        measure "$build" "sqlite, 1 node" "${NODE_PORTS[0]}"
        measure_open "$build" "sqlite, 1 node" "${NODE_PORTS[0]}"
        if [ -n "$leads" ]; then LEAD_DB=$SQ measure_leads "$build" "sqlite, 1 node" "${NODE_PORTS[0]}"; fi
        stop_all
    fi
    [ "${BENCH_W_ONLY:-}" = sqlite ] && return
    METRICS_PORT=
    local mopt=()
    case "$help" in *--metrics-listen*)
        METRICS_PORT=$(free_port)
        mopt=(--metrics-listen "127.0.0.1:$METRICS_PORT") ;;
    esac
    if [ "${BENCH_W_ONLY:-}" != nodes ]; then
        one_node "$build" "$bin" "${lim[@]}"
        [ "${BENCH_W_ONLY:-}" = cache ] && return
    fi
    for _ in 1 2 3; do BIN=$bin start_node "$PGD" "${lim[@]}" "${PG_ARGS[@]}"; done
    start_haproxy
    measure "$build" "postgresql, 3 nodes, delay proxy" "$HA_PORT"
    measure_open "$build" "postgresql, 3 nodes, delay proxy" "$HA_PORT"
    if [ -n "$leads" ]; then LEAD_DB=$PG measure_leads "$build" "postgresql, 3 nodes, delay proxy" "$HA_PORT"; fi
    stop_all
}

# one_node BUILD BINARY OPTION...: the PostgreSQL node on its socket (and the cached reads
# during a flood), then behind the delay proxy; BENCH_W_ONLY=cache: the cached reads alone
one_node() {
    local build=$1 bin=$2
    shift 2
    local lim=("$@")
    BIN=$bin start_node "$PG" "${lim[@]}" "${PG_ARGS[@]}" "${mopt[@]}"
    if [ "${BENCH_W_ONLY:-}" = cache ]; then
        reads_in_flood "$build" "${NODE_PORTS[0]}"
        stop_all
        return
    fi
    measure "$build" "postgresql, 1 node, socket" "${NODE_PORTS[0]}"
    if [ -n "$leads" ]; then LEAD_DB=$PG measure_leads "$build" "postgresql, 1 node, socket" "${NODE_PORTS[0]}"; fi
    reads_in_flood "$build" "${NODE_PORTS[0]}"
    stop_all
    BIN=$bin start_node "$PGD" "${lim[@]}" "${PG_ARGS[@]}"
    measure "$build" "postgresql, 1 node, delay proxy" "${NODE_PORTS[0]}"
    if [ -n "$leads" ]; then LEAD_DB=$PG measure_leads "$build" "postgresql, 1 node, delay proxy" "${NODE_PORTS[0]}"; fi
    stop_all
}

# durable: the three nodes again on a second cluster with fsync, synchronous_commit and
# full_page_writes on (PostgreSQL's defaults: every commit waits for its WAL flush, and
# concurrent commits share one flush, group commit), behind a delay proxy of its own, the
# closed-loop and fixed-rate rows; BENCH_W_FSYNC=0 skips it
DURABLE_DIR=
DURABLE_PROXY=
durable() {
    local bin=$1
    DURABLE_DIR=$(mktemp -d /tmp/whistle-benchw-durable.XXXXXX)
    local dproxy_dir
    dproxy_dir=$(mktemp -d /tmp/whistle-benchw-dproxy.XXXXXX)
    PG_BASE=$(PGCLUSTER_DURABLE=1 bash tests/pgcluster.sh start "$DURABLE_DIR")
    "$TMP/delayproxy" "$dproxy_dir/.s.PGSQL.5432" "$DURABLE_DIR/.s.PGSQL.5432" "$DELAY" &
    DURABLE_PROXY=$!
    local main_proxy=$PROXYDIR
    PROXYDIR=$dproxy_dir
    DBNAME=durable
    data durable "$bin" # PGD: through this proxy
    PROXYDIR=$main_proxy
    local lim=(--vote-limit-voter 100000 --vote-limit-ip 1000000 --threads "$THREADS"
        --trusted-proxy 127.0.0.1 --anon-vote-limit-ip 1000000 --new-voter-limit-ip 1000000)
    for _ in 1 2 3; do BIN=$bin start_node "$PGD" "${lim[@]}" "${PG_ARGS[@]}"; done
    start_haproxy
    measure after "postgresql fsync on, 3 nodes, delay proxy" "$HA_PORT"
    measure_open after "postgresql fsync on, 3 nodes, delay proxy" "$HA_PORT"
    stop_all
    kill -TERM "$DURABLE_PROXY" 2>/dev/null || true
    wait "$DURABLE_PROXY" 2>/dev/null || true
    bash tests/pgcluster.sh stop "$DURABLE_DIR" || true
    rm -rf "$DURABLE_DIR" "$dproxy_dir"
    DURABLE_DIR=
}

# BENCH_W_AFTER_FIRST=1 runs the after build's grid first: two runs in both orders show how
# much of a difference is the machine's load drifting during the run
if [ "${BENCH_W_AFTER_FIRST:-}" = 1 ]; then
    grid after "$BIN"
    if [ -n "$BEFORE" ]; then grid before "$BEFORE"; fi
else
    if [ -n "$BEFORE" ]; then grid before "$BEFORE"; fi
    grid after "$BIN"
fi
case "${BENCH_W_ONLY:-}" in cache | sqlite) ;; *)
    if [ "${BENCH_W_FSYNC:-1}" != 0 ]; then durable "$BIN"; fi ;;
esac

# ---- Markdown ----------------------------------------------------------------------------

if [ -s "$READS" ]; then
    echo "### Cached reads during a ballot flood"
    echo
    echo "One PostgreSQL node on its socket (\`--threads $THREADS\`): \`GET /api/v1/incidents/{id}\` of"
    echo "$READ_SET incidents in rotation (bench/rotate.lua), \`wrk -t1 -c8 -d$DUR\`, quiet, then while"
    echo "\`wrk -t1 -c2\` casts ballots (bench/ballots.lua) on the other $((N - READ_SET)) incidents (issue 20"
    echo "item 5). Cache hits: the share of the reads the node answered from its cache during the flood"
    echo "(\`whistle_http_cache_total\` on /metrics; n/a for a build without it). Load average: the"
    echo "machine's 1-minute figure after the run (shared with other work)."
    echo
    echo "| build | reads/s quiet | reads/s during the flood | ballots/s of the flood | cache hits during the flood | load avg |"
    echo "|---|---:|---:|---:|---:|---:|"
    while IFS=$'\t' read -r build quiet flood ballots hits load; do
        printf '| %s | %.0f | %.0f | %.0f | %s | %s |\n' "$build" "$quiet" "$flood" "$ballots" "$hits" "$load"
    done <"$READS"
    echo
fi
[ "${BENCH_W_ONLY:-}" = cache ] && exit 0


echo "Ballots (\`POST /incidents/{id}/vote\`, JSON) of $V anonymous voters, \`wrk --latency -t2 -c$C -d$DUR\`"
echo "after a \`-d$WARMUP\` warm-up (bench/ballots.lua); \"spread\": voter k on incident k of $N, each"
echo "later ballot of a voter replacing its earlier one; \"hot\": every voter on one incident. Nodes"
echo "are \`whistle serve --no-worker --threads $THREADS\` with the ballot limits raised; the delay proxy"
echo "(bench/delayproxy.c) holds each chunk ${DELAY} µs each way between nodes and PostgreSQL"
echo "$("$PSQL" --version | awk '{ print $3 }') (Unix sockets, \`fsync=off\`, but the \"fsync on\" rows: a second cluster with PostgreSQL's durable defaults); HAProxy balances \`${BENCH_HA_BALANCE:-roundrobin}\`${BENCH_HA_MAXCONN:+ with \`maxconn $BENCH_HA_MAXCONN\` per node};"
echo "voters' addresses: $ADDRESSES (BENCH_W_ADDRESSES). Everything, wrk included, shares $(nproc) cores;"
echo "load avg: the machine's 1-minute load average after each row (shared with other work)."
echo
echo "| build | configuration | load | ballots/s | p99 ms | non-2xx | load avg |"
echo "|---|---|---|---:|---:|---:|---:|"
while IFS=$'\t' read -r build config load rps p99 n2 la; do
    [ "$load" != leads ] || continue
    printf '| %s | %s | %s | %.0f | %.3f | %s | %s |\n' "$build" "$config" "$load" "$rps" "$p99" "$n2" "$la"
done <"$RESULTS"
echo
if grep -q $'\tleads\t' "$RESULTS"; then
    echo "Agent leads (\`POST /api/v1/agent-leads\`) of $LEAD_KEYS keys (as many accounts), each with an"
    echo "Idempotency-Key of its own (bench/leads.lua), same wrk settings, on the same nodes with the"
    echo "lead quotas raised (\`--lead-quota-minute/-day/-global 1000000\`): every lead accepted (202)."
    echo
    echo "| build | configuration | leads/s | p99 ms | non-2xx | load avg |"
    echo "|---|---|---:|---:|---:|---:|"
    while IFS=$'\t' read -r build config load rps p99 n2 la; do
        [ "$load" = leads ] || continue
        printf '| %s | %s | %.0f | %.3f | %s | %s |\n' "$build" "$config" "$rps" "$p99" "$n2" "$la"
    done <"$RESULTS"
    echo
fi
echo "| ratio (per second) | build | ballots, spread | ballots, hot | leads |"
echo "|---|---|---:|---:|---:|"
for b in before after; do
    [ -n "$(get $b "sqlite, 1 node" spread)" ] || continue
    echo "| 3 PostgreSQL nodes at the delay / 1 SQLite node | $b | $(ratio "$(get $b "postgresql, 3 nodes, delay proxy" spread)" "$(get $b "sqlite, 1 node" spread)") | $(ratio "$(get $b "postgresql, 3 nodes, delay proxy" hot)" "$(get $b "sqlite, 1 node" hot)") | $(ratio "$(get $b "postgresql, 3 nodes, delay proxy" leads)" "$(get $b "sqlite, 1 node" leads)") |"
done
if [ -n "$(get after "postgresql fsync on, 3 nodes, delay proxy" spread)" ]; then
    echo "| 3 PostgreSQL nodes at the delay, fsync on / fsync off | after | $(ratio "$(get after "postgresql fsync on, 3 nodes, delay proxy" spread)" "$(get after "postgresql, 3 nodes, delay proxy" spread)") | $(ratio "$(get after "postgresql fsync on, 3 nodes, delay proxy" hot)" "$(get after "postgresql, 3 nodes, delay proxy" hot)") | |"
fi
if [ -s "$OPEN" ]; then
    echo
    echo "Ballots at a fixed rate (bench/openloop.c, an open loop over $C keep-alive connections: ballot"
    echo "i is due at t0 + i / rate whether or not the earlier ones were answered, and its latency runs"
    echo "from that moment, so a configuration that falls behind shows its whole backlog; the same"
    echo "ballots as above, \`-d$DUR\` after a \`$WARMUP\` warm-up). wrk's closed loop keeps $C ballots in"
    echo "flight whatever the server, so its p99 is mostly that queue ($C / ballots/s on average); this"
    echo "is the latency at a given load. Rates: \"target\", the issue's ratios of this build's SQLite"
    echo "node in this run (0.4 × its spread ballots/s, 0.25 × its hot ones); \"capacity\", 0.75 × the"
    echo "configuration's own closed-loop ballots/s above."
    echo
    echo "| build | configuration | load | rate | offered/s | answered/s | p50 ms | p99 ms | p99.9 ms | max ms | non-2xx | errors | load avg |"
    echo "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    while IFS=$'\t' read -r build config load kind rate got p50 p99 p999 mx n2 err la; do
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$build" "$config" \
            "$load" "$kind" "$rate" "$got" "$p50" "$p99" "$p999" "$mx" "$n2" "$err" "$la"
    done <"$OPEN"
fi

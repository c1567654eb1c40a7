#!/usr/bin/env bash
# bench/run.sh: Whistle read-path benchmark (issue 2, "Performance"). `make bench` runs it.
#
# For each scale (default 10,000 then 1,000,000 incidents) it bulk-loads a database with
# bench/seed.sql, starts `whistle serve` on it, and measures with wrk on loopback
#   GET /api/v1/incidents/{id}        (one incident from the middle of the data set)
#   GET /api/v1/incidents?limit=20    (first list page)
# On the first scale the same run also serves the byte-identical responses from nginx (2
# workers, static files) and measures it; later scales measure Whistle at 32 connections
# and compare with the first scale. Because Whistle caches responses, two extra runs per
# scale cycle through many different incidents and list windows (bench/rotate.lua), and,
# when the binary has `serve --no-cache`, the fixed URLs are measured again without the
# cache. Then bench/pg.sh compares SQLite with PostgreSQL on one node, and one with three
# PostgreSQL nodes behind HAProxy, on the first scale (issue 8). The summary goes to stdout
# and to BENCHMARKS.md.
#
# A benchmark is not a test: missed targets print MISS and the script still exits 0. It
# exits non-zero only when something breaks (a tool is missing, the server does not start
# or dies, a response is not 200, nginx's bytes differ from Whistle's).
#
# Environment:
#   WHISTLE_BIN    server binary (default build/whistle)
#   BENCH_SCALES   incident counts, first one is the baseline (default "10000 1000000")
#   BENCH_QUICK=1  10,000 incidents only, 3 s runs, 1 s warm-ups (for development)
#   DUR            wrk duration of each measured run (default 10s)
#   WARMUP         wrk duration of the warm-up before each measured run (default 3s)
#   BENCH_THREADS  passed as `serve --threads N` when set (default: the server's own)
#   BENCH_OUT      where to write the report (default BENCHMARKS.md at the repository root)
#   BENCH_ROTATE   how many different incidents / list windows the rotating runs cycle
#                  through (default 20000)
#   BENCH_RETRIES  how many times a run disturbed by other processes (> 10% of the CPU)
#                  is measured again; the least disturbed attempt is kept (default 2)
#   BENCH_KEEP=1   keep the temporary directory (databases, logs, nginx files)
#   BENCH_PG=0     skip the PostgreSQL comparison (bench/pg.sh)
#   BENCH_SIGNINS=0 skip the read-under-sign-ins figures (bench/signins.sh; WHISTLE_BIN_BEFORE
#                  adds a before/after comparison with another build)
#   BENCH_READS=0  skip the uncached read rotations and gzip (bench/reads.sh, issue 13;
#                  BENCH_READS_SCALES, default the first scale; BENCH_READS_PG=0 skips its
#                  PostgreSQL rotations)
#   BENCH_FORGOT=0 skip the forgot-password figures (bench/forgot.sh, BENCH_F_ROUNDS rounds,
#                  default 3)
#   BENCH_WRITES=0 skip the write-path figures (bench/writes.sh; WHISTLE_BIN_BEFORE adds a
#                  before/after comparison with another build)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

BIN=${WHISTLE_BIN:-build/whistle}
QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then
    SCALES=${BENCH_SCALES:-10000}
    DUR=${DUR:-3s}
    WARMUP=${WARMUP:-1s}
else
    SCALES=${BENCH_SCALES:-10000 1000000}
    DUR=${DUR:-10s}
    WARMUP=${WARMUP:-3s}
fi
OUT=${BENCH_OUT:-$ROOT/BENCHMARKS.md}
ROTATE=${BENCH_ROTATE:-20000}
RETRIES=${BENCH_RETRIES:-2}
DISTURBED=10 # % of the machine's CPU taken by other processes that makes a run disturbed
WRK_THREADS=2
C_LOW=32
C_HIGH=256

die() {
    echo "bench: $*" >&2
    exit 1
}
say() { echo "bench: $*" >&2; }

# ---- 1. tools and binary -----------------------------------------------------------------

missing=""
for tool in wrk nginx sqlite3 curl; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
    die "missing tool(s):$missing; run \`make deps\` (Debian packages: wrk nginx-light sqlite3 curl)"
fi
[ -x "$BIN" ] || die "no executable server binary at $BIN; run \`make\` first or set WHISTLE_BIN"
for s in $SCALES; do
    [[ "$s" =~ ^[1-9][0-9]*$ ]] || die "BENCH_SCALES: \"$s\" is not a positive integer"
done
BASE_SCALE=${SCALES%% *}

# ---- temporary directory, processes, cleanup ---------------------------------------------

TMP=$(mktemp -d "${TMPDIR:-/tmp}/whistle-bench.XXXXXX")
WPID=""
NPID=""
SPID=""
WLOG=""
WEXTRA=()

stop_pid() { # stop_pid PID SIGNAL: signal one process we started and wait for it
    local pid=$1 sig=$2 i
    [ -n "$pid" ] || return 0
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    kill "-$sig" "$pid" 2>/dev/null || true
    for i in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        say "process $pid did not stop after SIG$sig; killing it"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    if [ "$rc" != 0 ] && [ -n "$WLOG" ] && [ -s "$WLOG.other" ]; then
        echo "bench: --- whistle log, lines other than the access log ---" >&2
        tail -n 30 "$WLOG.other" >&2 || true
    fi
    if [ "$rc" != 0 ] && [ -n "$WLOG" ] && [ -s "$WLOG" ]; then
        echo "bench: --- last lines of the whistle log ---" >&2
        tail -n 20 "$WLOG" >&2 || true
    fi
    stop_pid "$SPID" TERM
    stop_pid "$WPID" TERM
    stop_pid "$NPID" QUIT
    if [ "${BENCH_KEEP:-0}" = 1 ]; then
        say "kept $TMP"
    else
        rm -rf "$TMP"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# free_port (bench/lib.sh): a TCP port on 127.0.0.1 that nothing listens on
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

# conn_sampler PORT FILE: until killed, write twice a second the client ends (address:port)
# of the established connections to PORT. The number of distinct client ends over a run
# shows whether keep-alive held: one per wrk connection when it does, more when the server
# closes connections. (Per port, unlike the machine-wide TCP counters, which also count
# whatever else runs on the machine.)
conn_sampler() {
    local port=$1 file=$2
    while :; do
        ss -Htan state established "( dport = :$port )" 2>/dev/null | awk '{ print $3 }' >>"$file"
        sleep 0.5
    done
}
# server_time_wait PORT: connections that the server at PORT closed first, still in TIME_WAIT
server_time_wait() {
    ss -Htan state time-wait "( sport = :$1 )" 2>/dev/null | wc -l
}

# ---- 2. data set -------------------------------------------------------------------------

build_db() { # build_db DB N
    local db=$1 n=$2 t0 t1
    t0=$(date +%s.%N)
    "$BIN" migrate --db "$db" >"$TMP/migrate.out" 2>&1 ||
        { cat "$TMP/migrate.out" >&2; die "\`$BIN migrate --db $db\` failed"; }
    sqlite3 -bail "$db" ".parameter set @n $n" ".read $ROOT/bench/seed.sql" >/dev/null ||
        die "loading $n incidents with bench/seed.sql failed"
    # again: migrate renders the fragments of the rows seed.sql wrote behind its back, as a
    # deployment's incidents always have them
    "$BIN" migrate --db "$db" >"$TMP/migrate.out" 2>&1 ||
        { cat "$TMP/migrate.out" >&2; die "\`$BIN migrate --db $db\` failed"; }
    t1=$(date +%s.%N)
    BUILD_SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    say "built $n incidents in ${BUILD_SECS}s ($(du -h "$db" | cut -f1))"
}

# ---- 3. server ---------------------------------------------------------------------------

# start_whistle DB BASE_URL [EXTRA_ARG...]: serve DB on a free port. BASE_URL "" means the
# server's own origin; the no-cache instance reuses the first instance's, so that both send
# the same bytes.
start_whistle() {
    local db=$1 base=$2 i
    shift 2
    WPORT=$(free_port)
    [ -n "$base" ] || base="http://127.0.0.1:$WPORT"
    WLOG="$TMP/whistle.log"
    : >"$WLOG"
    : >"$WLOG.other"
    local args=(serve --db "$db" --listen "127.0.0.1:$WPORT" --base-url "$base")
    if [ -n "${BENCH_THREADS:-}" ]; then args+=(--threads "$BENCH_THREADS"); fi
    args+=("$@")
    WEXTRA=("$@")
    # The access log (one line per request) goes to a file, opened O_APPEND so it can be
    # truncated between runs without leaving a sparse hole.
    "$BIN" "${args[@]}" >>"$WLOG" 2>&1 </dev/null &
    WPID=$!
    for i in $(seq 1 300); do
        if grep -q "whistle: listening on http://127.0.0.1:$WPORT" "$WLOG" 2>/dev/null; then
            say "whistle (pid $WPID) listening on 127.0.0.1:$WPORT${*:+ ($*)}"
            return 0
        fi
        if ! kill -0 "$WPID" 2>/dev/null; then
            start_failed "whistle exited during start-up"
            return 1
        fi
        sleep 0.1
    done
    start_failed "whistle did not print \"listening\" within 30 s"
}

# start_failed MESSAGE: a start-up failure is fatal, unless START_OPTIONAL=1 (the extra
# --no-cache runs), where it becomes an anomaly and start_whistle returns 1.
start_failed() {
    save_log
    if [ "${START_OPTIONAL:-0}" = 1 ]; then
        anomaly "\`whistle serve … ${WEXTRA[*]}\`: $1: $(grep -v '^whistle: listening' "$WLOG.other" | head -n 1)"
        stop_pid "$WPID" TERM
        WPID=""
        return 1
    fi
    die "$1"
}

check_alive() {
    if ! kill -0 "$WPID" 2>/dev/null; then
        local st=0
        wait "$WPID" || st=$?
        WPID=""
        save_log
        die "whistle died during the benchmark (exit status $st)"
    fi
    if [ -n "$NPID" ]; then
        kill -0 "$NPID" 2>/dev/null || die "nginx (pid $NPID) died during the benchmark"
    fi
}

# fetch URL BODYFILE HEADERFILE: GET, insist on 200.
fetch() {
    local url=$1 body=$2 hdr=$3 code
    code=$(curl -sS -o "$body" -D "$hdr" -w '%{http_code}' "$url") || die "curl $url failed"
    [ "$code" = 200 ] || die "GET $url answered $code, not 200: $(head -c 300 "$body")"
}

# header_value FILE NAME: the value of a response header (last occurrence), CR stripped.
header_value() {
    awk -v n="$(echo "$2" | tr 'A-Z' 'a-z')" -F': ' '
        { sub(/\r$/, ""); k = tolower($1) } k == n { v = substr($0, length($1) + 3) }
        END { print v }' "$1"
}

# ---- 4. nginx with the same bytes --------------------------------------------------------

start_nginx() { # start_nginx CONTENT_TYPE
    local ctype=$1 user_line="" i
    NPORT=$(free_port)
    mkdir -p "$TMP/nginx/www" "$TMP/nginx/tmp" "$TMP/nginx/logs"
    cp "$TMP/w-detail.json" "$TMP/nginx/www/detail.json"
    cp "$TMP/w-list.json" "$TMP/nginx/www/list.json"
    if [ "$(id -u)" = 0 ]; then user_line="user root;"; fi
    cat >"$TMP/nginx/nginx.conf" <<EOF
$user_line
worker_processes 2;
daemon off;
pid $TMP/nginx/nginx.pid;
error_log $TMP/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 1000000;
    keepalive_timeout 75s;
    server_tokens off;
    open_file_cache max=16 inactive=600s;
    client_body_temp_path $TMP/nginx/tmp/body;
    proxy_temp_path $TMP/nginx/tmp/proxy;
    fastcgi_temp_path $TMP/nginx/tmp/fastcgi;
    uwsgi_temp_path $TMP/nginx/tmp/uwsgi;
    scgi_temp_path $TMP/nginx/tmp/scgi;
    types { }
    default_type "$ctype";
    server {
        listen 127.0.0.1:$NPORT;
        root $TMP/nginx/www;
        add_header Cache-Control "no-store" always;
        add_header X-Content-Type-Options "nosniff" always;
        add_header X-Request-Id "0123456789abcdef" always;
        location = /api/v1/incidents { try_files /list.json =404; }
        location ~ ^/api/v1/incidents/[0-9a-f-]+\$ { try_files /detail.json =404; }
        location / { return 404; }
    }
}
EOF
    nginx -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -e "$TMP/nginx/logs/error.log" \
        -t -q >"$TMP/nginx/logs/test.out" 2>&1 ||
        { cat "$TMP/nginx/logs/test.out" >&2; die "nginx rejected the generated configuration"; }
    nginx -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -e "$TMP/nginx/logs/error.log" \
        >/dev/null 2>&1 </dev/null &
    NPID=$!
    for i in $(seq 1 100); do
        if curl -s -o /dev/null "http://127.0.0.1:$NPORT/api/v1/incidents" 2>/dev/null; then
            say "nginx (pid $NPID) listening on 127.0.0.1:$NPORT"
            return 0
        fi
        kill -0 "$NPID" 2>/dev/null ||
            { cat "$TMP/nginx/logs/error.log" >&2 || true; die "nginx exited during start-up"; }
        sleep 0.1
    done
    die "nginx did not answer within 10 s"
}

# ---- 5. wrk ------------------------------------------------------------------------------

# to_ms VALUE: wrk's "1.23ms" / "456.00us" / "1.02s" / "1.50m" in milliseconds.
to_ms() {
    awk -v v="$1" 'BEGIN {
        if (match(v, /us$/)) printf "%.3f", substr(v, 1, RSTART - 1) / 1000;
        else if (match(v, /ms$/)) printf "%.3f", substr(v, 1, RSTART - 1);
        else if (match(v, /s$/)) printf "%.3f", substr(v, 1, RSTART - 1) * 1000;
        else if (match(v, /m$/)) printf "%.3f", substr(v, 1, RSTART - 1) * 60000;
        else printf "nan" }'
}

# save_log: keep the whistle log's non-access lines (start-up, signals, errors) in
# $WLOG.other and empty the log, so that it stays small and covers one run.
save_log() {
    if [ -n "$WLOG" ] && [ -f "$WLOG" ]; then
        grep -v '^info access: ' "$WLOG" >>"$WLOG.other" || true
        : >"$WLOG"
    fi
}

RESULTS="$TMP/results.tsv" # scale server endpoint conns rps p50 p99 non2xx sockerr seen closes
: >"$RESULTS"
ANOMALIES="$TMP/anomalies.txt"
: >"$ANOMALIES"
anomaly() {
    echo "- $*" >>"$ANOMALIES"
    say "anomaly: $*"
}

# our_ticks: CPU ticks used so far by the processes of this benchmark: the whistle server,
# nginx (master and workers), and this shell's reaped children (wrk, the sampler).
our_ticks() {
    awk -v w="$WPID" -v n="$NPID" -v me="$$" '
        { o = index($0, "("); c = match($0, /\) [A-Za-z] /)
          if (!o || !c) next
          split(substr($0, c + 2), f, " ")
          if ($1 == w || $1 == n || (n != "" && f[2] == n)) t += f[12] + f[13]
          if ($1 == me) t += f[14] + f[15] }
        END { print t + 0 }' /proc/[0-9]*/stat 2>/dev/null || echo 0
}
machine_ticks() { # busy (user+nice+system, plus steal: time the VM did not get) and total ticks
    awk '/^cpu / { print $2 + $3 + $4 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
}

# measure SCALE SERVER ENDPOINT CONNS URL [PATHS_FILE]: warm up, then one measured wrk run;
# with PATHS_FILE, wrk cycles through those paths (bench/rotate.lua) on URL's server.
measure() {
    local scale=$1 server=$2 ep=$3 conns=$4 url=$5 paths=${6:-} out rps p50 p99 non2xx sockerr
    local script=()
    if [ -n "$paths" ]; then script=(-s "$ROOT/bench/rotate.lua"); fi
    local port=${url#http://127.0.0.1:} tw0 tw1 seen closes
    port=${port%%/*}
    local tag="$server-$ep-${conns}c-$scale"
    check_alive
    wrk "${script[@]}" -t"$WRK_THREADS" -c"$conns" -d"$WARMUP" "$url" ${paths:+-- "$paths"} >"$TMP/warm-$tag.txt" 2>&1 ||
        die "wrk warm-up failed: $(cat "$TMP/warm-$tag.txt")"
    save_log
    out="$TMP/wrk-$tag.txt"
    # Other processes on the machine (builds, test suites) disturb a run: measure again,
    # up to RETRIES times, and keep the least disturbed attempt.
    local attempt=0 best=-1 m0 m1 u0 u1 o other closes
    while :; do
        attempt=$((attempt + 1))
        tw0=$(server_time_wait "$port")
        m0=$(machine_ticks)
        u0=$(our_ticks)
        : >"$TMP/conns-$tag.$attempt"
        conn_sampler "$port" "$TMP/conns-$tag.$attempt" &
        SPID=$!
        wrk "${script[@]}" --latency -t"$WRK_THREADS" -c"$conns" -d"$DUR" "$url" ${paths:+-- "$paths"} \
            >"$out.$attempt" 2>&1 || die "wrk failed: $(cat "$out.$attempt")"
        tw1=$(server_time_wait "$port")
        stop_pid "$SPID" TERM
        SPID=""
        m1=$(machine_ticks)
        u1=$(our_ticks)
        # CPU that other processes took during the run, in % of the machine
        o=$(awk -v a="$m0" -v b="$m1" -v u0="$u0" -v u1="$u1" 'BEGIN {
            split(a, x, " "); split(b, y, " "); t = y[2] - x[2]
            o = (y[1] - x[1]) - (u1 - u0); if (o < 0 || t <= 0) o = 0
            printf "%.0f", (t > 0) ? 100 * o / t : 0 }')
        if [ "$best" -lt 0 ] || [ "$o" -lt "$other" ]; then
            best=$attempt
            other=$o
            closes=$((tw1 > tw0 ? tw1 - tw0 : 0))
            cp "$out.$attempt" "$out"
            cp "$TMP/conns-$tag.$attempt" "$TMP/conns-$tag.txt"
        fi
        if [ "$other" -le "$DISTURBED" ] || [ "$attempt" -gt "$RETRIES" ]; then break; fi
        say "$server $ep $scale ${conns}c: other processes took ${o}% of the CPU; measuring again"
        check_alive
        sleep 5
    done
    check_alive
    rps=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
    p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' "$out")")
    p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$out")")
    non2xx=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$out")
    non2xx=${non2xx:-0}
    sockerr=$(awk '/Socket errors:/ { gsub(",", ""); print "connect " $4 " read " $6 " write " $8 " timeout " $10 }' "$out")
    sockerr=${sockerr:-none}
    seen=$(sort -u "$TMP/conns-$tag.txt" | wc -l)
    [ -n "$rps" ] || die "could not read Requests/sec from wrk output: $(cat "$out")"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scale" "$server" "$ep" "$conns" \
        "$rps" "$p50" "$p99" "$non2xx" "$sockerr" "$seen" "$closes" "$other" >>"$RESULTS"
    printf 'bench: %-7s %-6s %8s %3sc  %10.0f req/s  p50 %7.3f ms  p99 %7.3f ms  non-2xx %s  socket errors: %s  connections seen %s, server closes %s, other load %s%%\n' \
        "$server" "$ep" "$scale" "$conns" "$rps" "$p50" "$p99" "$non2xx" "$sockerr" "$seen" "$closes" "$other" >&2
    if [ "$other" -gt "$DISTURBED" ]; then
        anomaly "$server $ep $scale ${conns}c: other processes took ${other}% of the machine's CPU during the run (best of $attempt attempts); figures are disturbed"
    fi
    if [ "$non2xx" != 0 ]; then
        anomaly "$server $ep $scale ${conns}c: $non2xx non-2xx/3xx responses"
    fi
    if [ "$sockerr" != none ]; then
        anomaly "$server $ep $scale ${conns}c: socket errors ($sockerr)"
    fi
    # Keep-alive: expect one connection per wrk connection and no server-side closes.
    if [ "$seen" -gt $((conns + conns / 8)) ] || [ "$closes" -gt 0 ]; then
        anomaly "$server $ep $scale ${conns}c: $seen distinct connections for $conns wrk connections, $closes closed by the server (keep-alive lost?)"
    fi
    if [ "${server%%-*}" = whistle ] && [ -s "$WLOG" ]; then
        # Access lines are "info access: METHOD PATH STATUS BYTES NNus rid=… [aborted=N]".
        local logsum
        logsum=$(awk '
            $2 == "access:" { n++; if ($5 != "200") { bad++; if (!eb) eb = $0 } if (/aborted=/) ab++ }
            $1 == "warn" || $1 == "error" { w++; if (!ew) ew = $0 }
            END { if (bad) printf "%d access lines with a status other than 200 (e.g. %s); ", bad, eb
                  if (ab) printf "%d aborted requests; ", ab
                  if (w) printf "%d warn/error lines (e.g. %s); ", w, ew }' "$WLOG")
        if [ -n "$logsum" ]; then
            anomaly "$server $ep $scale ${conns}c, server log: ${logsum%; }"
        fi
    fi
    save_log
}

get() { # get SCALE SERVER ENDPOINT CONNS -> field (rps or p99)
    awk -F'\t' -v s="$1" -v v="$2" -v e="$3" -v c="$4" -v f="$5" '
        $1 == s && $2 == v && $3 == e && $4 == c { print (f == "rps" ? $5 : $7); exit }' "$RESULTS"
}

# keepalive_check URL: does the server keep a connection open across two requests?
keepalive_check() {
    local url=$1 n
    n=$(curl -sv -o /dev/null -o /dev/null "$url" "$url" 2>&1 | grep -c -i 're-using existing connection' || true)
    [ "${n:-0}" -ge 1 ]
}

# ---- run every scale ---------------------------------------------------------------------

DETAIL_BYTES=""
LIST_BYTES=""
BUILD_NOTES=""
# Whistle keeps a per-thread response cache, validated by the database's data version: the
# fixed URLs below are answered from it after the first request. When the binary has
# `--no-cache`, the same URLs are measured again without it, which is the path a request
# for anything not recently asked for takes (store queries + JSON).
NOCACHE=0
SERVE_USAGE=$("$BIN" serve --help 2>&1 || true)
case "$SERVE_USAGE" in *--no-cache*) NOCACHE=1 ;; esac

DETAIL_BYTES=""
LIST_BYTES=""
BUILD_NOTES=""
for N in $SCALES; do
    say "=== $N incidents ==="
    DB="$TMP/bench-$N.db"
    build_db "$DB" "$N"
    BUILD_NOTES="$BUILD_NOTES $N:${BUILD_SECS}s"
    MID=$(sqlite3 "$DB" "SELECT id FROM incidents ORDER BY rowid LIMIT 1 OFFSET $((N / 2))")
    [ -n "$MID" ] || die "no incident in the middle of the data set"
    start_whistle "$DB" ""
    W="http://127.0.0.1:$WPORT"
    BASE_URL=$W
    DETAIL_PATH="/api/v1/incidents/$MID"
    LIST_PATH="/api/v1/incidents?limit=20"

    fetch "$W$DETAIL_PATH" "$TMP/w-detail.json" "$TMP/w-detail.hdr"
    fetch "$W$LIST_PATH" "$TMP/w-list.json" "$TMP/w-list.hdr"
    # The responses must be stable, or a static copy would not be the same work.
    fetch "$W$DETAIL_PATH" "$TMP/w-detail2.json" "$TMP/w-detail2.hdr"
    fetch "$W$LIST_PATH" "$TMP/w-list2.json" "$TMP/w-list2.hdr"
    cmp -s "$TMP/w-detail.json" "$TMP/w-detail2.json" || die "two GETs of $DETAIL_PATH gave different bodies"
    cmp -s "$TMP/w-list.json" "$TMP/w-list2.json" || die "two GETs of $LIST_PATH gave different bodies"
    say "detail $(wc -c <"$TMP/w-detail.json") bytes, list $(wc -c <"$TMP/w-list.json") bytes (incident $MID)"
    if ! keepalive_check "$W$DETAIL_PATH"; then
        anomaly "whistle, $N incidents: curl did not reuse the connection for a second GET (keep-alive lost)"
    fi

    if [ "$N" = "$BASE_SCALE" ]; then
        DETAIL_BYTES=$(wc -c <"$TMP/w-detail.json")
        LIST_BYTES=$(wc -c <"$TMP/w-list.json")
        CTYPE=$(header_value "$TMP/w-detail.hdr" content-type)
        [ -n "$CTYPE" ] || die "whistle sent no Content-Type"
        CTYPE_LIST=$(header_value "$TMP/w-list.hdr" content-type)
        [ "$CTYPE" = "$CTYPE_LIST" ] || anomaly "detail and list Content-Types differ ($CTYPE / $CTYPE_LIST)"
        for h in cache-control x-content-type-options; do
            [ -n "$(header_value "$TMP/w-detail.hdr" "$h")" ] || anomaly "whistle sent no $h header"
        done
        start_nginx "$CTYPE"
        NG="http://127.0.0.1:$NPORT"
        fetch "$NG$DETAIL_PATH" "$TMP/n-detail.json" "$TMP/n-detail.hdr"
        fetch "$NG$LIST_PATH" "$TMP/n-list.json" "$TMP/n-list.hdr"
        cmp "$TMP/w-detail.json" "$TMP/n-detail.json" || die "nginx detail body differs from whistle's"
        cmp "$TMP/w-list.json" "$TMP/n-list.json" || die "nginx list body differs from whistle's"
        [ "$(header_value "$TMP/n-detail.hdr" content-type)" = "$CTYPE" ] ||
            die "nginx Content-Type \"$(header_value "$TMP/n-detail.hdr" content-type)\" is not whistle's \"$CTYPE\""
        say "nginx serves byte-identical bodies"

        measure "$N" whistle single "$C_LOW" "$W$DETAIL_PATH"
        measure "$N" nginx single "$C_LOW" "$NG$DETAIL_PATH"
        measure "$N" whistle list "$C_LOW" "$W$LIST_PATH"
        measure "$N" nginx list "$C_LOW" "$NG$LIST_PATH"
        measure "$N" whistle single "$C_HIGH" "$W$DETAIL_PATH"
        measure "$N" whistle list "$C_HIGH" "$W$LIST_PATH"
        measure "$N" nginx single "$C_HIGH" "$NG$DETAIL_PATH"
        measure "$N" nginx list "$C_HIGH" "$NG$LIST_PATH"
    else
        measure "$N" whistle single "$C_LOW" "$W$DETAIL_PATH"
        measure "$N" whistle list "$C_LOW" "$W$LIST_PATH"
    fi
    # Many different resources in turn: incidents spread over the data set, and list pages
    # ending at as many publication times (`to=`, exclusive: each a full first page of an
    # index range, the same work as the newest page). Mostly misses for the response cache.
    K=$((N < ROTATE ? N : ROTATE))
    STEP=$((N / K))
    sqlite3 "$DB" "SELECT '/api/v1/incidents/' || id FROM incidents
                   WHERE rowid % $STEP = 0 ORDER BY id" >"$TMP/rot-single.txt"
    sqlite3 "$DB" "SELECT '/api/v1/incidents?limit=20&to=' ||
                          strftime('%Y-%m-%dT%H:%M:%S', published_at / 1000000, 'unixepoch') ||
                          printf('.%06dZ', published_at % 1000000)
                   FROM incidents WHERE rowid > 100 AND rowid % $STEP = 0 ORDER BY id" \
        >"$TMP/rot-list.txt"
    ROT_SINGLE=$(wc -l <"$TMP/rot-single.txt")
    ROT_LIST=$(wc -l <"$TMP/rot-list.txt")
    fetch "$W$(sed -n '7p' "$TMP/rot-single.txt")" "$TMP/r-detail.json" "$TMP/r-detail.hdr"
    fetch "$W$(sed -n '7p' "$TMP/rot-list.txt")" "$TMP/r-list.json" "$TMP/r-list.hdr"
    printf '%s\t%s\t%s\n' "$N" "$ROT_SINGLE" "$ROT_LIST" >>"$TMP/rot-counts.tsv"
    measure "$N" whistle single-rot "$C_LOW" "$W" "$TMP/rot-single.txt"
    measure "$N" whistle list-rot "$C_LOW" "$W" "$TMP/rot-list.txt"
    stop_pid "$WPID" TERM
    WPID=""

    if [ "$NOCACHE" = 1 ] && ! START_OPTIONAL=1 start_whistle "$DB" "$BASE_URL" --no-cache; then
        NOCACHE=0
    fi
    if [ "$NOCACHE" = 1 ]; then
        W="http://127.0.0.1:$WPORT"
        fetch "$W$DETAIL_PATH" "$TMP/u-detail.json" "$TMP/u-detail.hdr"
        fetch "$W$LIST_PATH" "$TMP/u-list.json" "$TMP/u-list.hdr"
        cmp -s "$TMP/w-detail.json" "$TMP/u-detail.json" || die "the detail body differs with --no-cache"
        cmp -s "$TMP/w-list.json" "$TMP/u-list.json" || die "the list body differs with --no-cache"
        measure "$N" whistle-nocache single "$C_LOW" "$W$DETAIL_PATH"
        measure "$N" whistle-nocache list "$C_LOW" "$W$LIST_PATH"
        if [ "$N" = "$BASE_SCALE" ]; then
            measure "$N" whistle-nocache single "$C_HIGH" "$W$DETAIL_PATH"
            measure "$N" whistle-nocache list "$C_HIGH" "$W$LIST_PATH"
        fi
        stop_pid "$WPID" TERM
        WPID=""
    fi
    if [ -n "$NPID" ]; then
        stop_pid "$NPID" QUIT
        NPID=""
    fi
    rm -f "$DB" "$DB-wal" "$DB-shm"
done

# ---- 6. summary --------------------------------------------------------------------------

rot_count() { # rot_count SCALE single|list
    awk -F'\t' -v s="$1" -v k="$2" '$1 == s { print (k == "single" ? $2 : $3); exit }' "$TMP/rot-counts.tsv"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print ""; else printf "%.2f", a / b }'; }
# mark VALUE OP TARGET
mark() {
    awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {
        if (v == "") { print "n/a"; exit }
        ok = (op == ">=") ? (v + 0 >= t + 0) : (v + 0 < t + 0)
        print ok ? "PASS" : "MISS" }'
}

B=$BASE_SCALE
TABLE="$TMP/table.md"
{
    echo "| incidents | server | request | connections | req/s | p50 ms | p99 ms | non-2xx | socket errors | connections seen | server closes | other load |"
    echo "|---:|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|"
    while IFS=$'\t' read -r s v e c rps p50 p99 n2 se seen cl ol; do
        case "$e" in
        single) req='`GET /api/v1/incidents/{id}`' ;;
        list) req='`GET /api/v1/incidents?limit=20`' ;;
        single-rot) req="\`GET /api/v1/incidents/{id}\`, $(rot_count "$s" single) ids in turn" ;;
        list-rot) req="\`GET /api/v1/incidents?limit=20&to={t}\`, $(rot_count "$s" list) windows in turn" ;;
        *) req=$e ;;
        esac
        printf '| %s | %s | %s | %s | %.0f | %.3f | %.3f | %s | %s | %s | %s | %s%% |\n' \
            "$s" "$v" "$req" "$c" "$rps" "$p50" "$p99" "$n2" "$se" "$seen" "$cl" "$ol"
    done <"$RESULTS"
} >"$TABLE"

# targets SERVER: the issue's targets for one Whistle configuration.
targets() {
    local w=$1 r p s e
    r=$(ratio "$(get "$B" "$w" single $C_LOW rps)" "$(get "$B" nginx single $C_LOW rps)")
    echo "| single incident / nginx, ${C_LOW}c, $B incidents | ${r:-n/a} | ≥ 0.7 | $(mark "$r" '>=' 0.7) |"
    r=$(ratio "$(get "$B" "$w" list $C_LOW rps)" "$(get "$B" nginx list $C_LOW rps)")
    echo "| list page / nginx, ${C_LOW}c, $B incidents | ${r:-n/a} | ≥ 0.5 | $(mark "$r" '>=' 0.5) |"
    for e in single list; do
        r=$(ratio "$(get "$B" "$w" $e $C_HIGH rps)" "$(get "$B" "$w" $e $C_LOW rps)")
        echo "| $e: ${C_HIGH}c / ${C_LOW}c, $B incidents | ${r:-n/a} | ≥ 0.9 | $(mark "$r" '>=' 0.9) |"
    done
    for s in $SCALES; do
        for e in single list; do
            p=$(get "$s" "$w" $e $C_LOW p99)
            if [ -n "$p" ]; then
                echo "| $e: p99 at ${C_LOW}c, $s incidents (ms) | $p | < 5 | $(mark "$p" '<' 5) |"
            fi
        done
    done
    for s in $SCALES; do
        if [ "$s" = "$B" ]; then continue; fi
        r=$(ratio "$(get "$s" "$w" single $C_LOW rps)" "$(get "$B" "$w" single $C_LOW rps)")
        echo "| single: $s / $B incidents, ${C_LOW}c | ${r:-n/a} | ≥ 0.9 | $(mark "$r" '>=' 0.9) |"
        r=$(ratio "$(get "$s" "$w" list $C_LOW rps)" "$(get "$B" "$w" list $C_LOW rps)")
        echo "| list: $s / $B incidents, ${C_LOW}c | ${r:-n/a} | ≥ 0.75 | $(mark "$r" '>=' 0.75) |"
    done
}

RATIOS="$TMP/ratios.md"
{
    echo "| target | measured | goal | |"
    echo "|---|---:|---:|---|"
    targets whistle
} >"$RATIOS"
RATIOS_ROT="$TMP/ratios-rotating.md"
{
    echo "| target (many resources in turn) | measured | goal | |"
    echo "|---|---:|---:|---|"
    for s in $SCALES; do
        for e in single list; do
            p=$(get "$s" whistle $e-rot $C_LOW p99)
            if [ -n "$p" ]; then
                echo "| $e: p99 at ${C_LOW}c, $s incidents (ms) | $p | < 5 | $(mark "$p" '<' 5) |"
            fi
        done
    done
    for s in $SCALES; do
        if [ "$s" = "$B" ]; then continue; fi
        r=$(ratio "$(get "$s" whistle single-rot $C_LOW rps)" "$(get "$B" whistle single-rot $C_LOW rps)")
        echo "| single: $s / $B incidents, ${C_LOW}c | ${r:-n/a} | ≥ 0.9 | $(mark "$r" '>=' 0.9) |"
        r=$(ratio "$(get "$s" whistle list-rot $C_LOW rps)" "$(get "$B" whistle list-rot $C_LOW rps)")
        echo "| list: $s / $B incidents, ${C_LOW}c | ${r:-n/a} | ≥ 0.75 | $(mark "$r" '>=' 0.75) |"
    done
} >"$RATIOS_ROT"
RATIOS_NC="$TMP/ratios-nocache.md"
: >"$RATIOS_NC"
if [ "$NOCACHE" = 1 ]; then
    {
        echo "| target (\`serve --no-cache\`) | measured | goal | |"
        echo "|---|---:|---:|---|"
        targets whistle-nocache
    } >"$RATIOS_NC"
fi

echo
echo "Whistle benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo
cat "$TABLE"
echo
cat "$RATIOS"
echo
cat "$RATIOS_ROT"
if [ -s "$RATIOS_NC" ]; then
    echo
    cat "$RATIOS_NC"
fi
if [ -s "$ANOMALIES" ]; then
    echo
    echo "Anomalies:"
    cat "$ANOMALIES"
fi

# ---- BENCHMARKS.md -----------------------------------------------------------------------

CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
MEM=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
COMMIT=""
if [ -f "$ROOT/.git/HEAD" ]; then # read the files; no git command
    head_ref=$(cat "$ROOT/.git/HEAD")
    case "$head_ref" in
    ref:*)
        ref=${head_ref#ref: }
        if [ -f "$ROOT/.git/$ref" ]; then
            COMMIT=$(cat "$ROOT/.git/$ref")
        elif [ -f "$ROOT/.git/packed-refs" ]; then
            COMMIT=$(awk -v r="$ref" '$2 == r { print $1 }' "$ROOT/.git/packed-refs")
        fi
        ;;
    *) COMMIT=$head_ref ;;
    esac
fi
# Durability (issue 3): leads submitted while the server is killed with SIGKILL at random
# points; every acknowledged (202) lead must be there after a restart.
CRASH_MD="$TMP/crash.md"
: >"$CRASH_MD"
if WHISTLE_BIN="$BIN" /usr/bin/python3 -m pytest -q -p no:cacheprovider \
    "$ROOT/tests/http/test_crash.py::test_sigkill_loses_no_acknowledged_lead" >"$TMP/crash.log" 2>&1 &&
    [ -f "$ROOT/tests/http/artifacts/crash.json" ]; then
    /usr/bin/python3 - "$ROOT/tests/http/artifacts/crash.json" >"$CRASH_MD" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
print("| rounds (SIGKILL each) | submissions | acknowledged (202) | lost | one lead per key |")
print("|---:|---:|---:|---:|---|")
print(f"| {c['rounds']} | {c['attempts']} | {c['acked']} | {c['lost']} | "
      f"{'yes' if c['duplicate_ids'] == 0 and c['replay_mismatches'] == 0 else 'NO'} |")
print()
print(f"{c['in_flight_at_kill']} requests were in flight at the kills; re-sent with the same "
      f"Idempotency-Key, each settled on one lead or on nothing.")
PY
else
    echo "The crash test failed; see its output:" >"$CRASH_MD"
    sed 's/^/    /' "$TMP/crash.log" | tail -n 30 >>"$CRASH_MD"
fi

# PostgreSQL and several nodes (issue 8): bench/pg.sh on the first scale, same durations.
PG_MD="$TMP/pg.md"
: >"$PG_MD"
if [ "${BENCH_PG:-1}" = 1 ]; then
    say "PostgreSQL comparison (bench/pg.sh, $BASE_SCALE incidents)"
    if ! WHISTLE_BIN="$BIN" DUR="$DUR" WARMUP="$WARMUP" BENCH_PG_SCALE="$BASE_SCALE" \
        bash "$ROOT/bench/pg.sh" >"$PG_MD" 2>"$TMP/pg.log"; then
        {
            echo "bench/pg.sh failed; the end of its output:"
            echo
            tail -n 20 "$TMP/pg.log" | sed 's/^/    /'
        } >"$PG_MD"
    fi
    cat "$TMP/pg.log" >&2
fi

# Uncached reads and gzip (issue 13): bench/reads.sh, against nginx in the same run.
R_MD="$TMP/reads.md"
: >"$R_MD"
if [ "${BENCH_READS:-1}" = 1 ]; then
    say "uncached read rotations and gzip (bench/reads.sh)"
    if ! WHISTLE_BIN="$BIN" DUR="$DUR" WARMUP="$WARMUP" \
        BENCH_READS_SCALES="${BENCH_READS_SCALES:-$BASE_SCALE}" bash "$ROOT/bench/reads.sh" \
        >"$R_MD" 2>"$TMP/reads.log"; then
        {
            echo "bench/reads.sh failed; the end of its output:"
            echo
            tail -n 20 "$TMP/reads.log" | sed 's/^/    /'
        } >"$R_MD"
    fi
    cat "$TMP/reads.log" >&2
fi

# Writes (issue 20): bench/writes.sh, ballots on SQLite, PostgreSQL and three nodes behind a
# delay proxy; with WHISTLE_BIN_BEFORE set, before/after in the same run.
W_MD="$TMP/writes.md"
: >"$W_MD"
if [ "${BENCH_WRITES:-1}" = 1 ]; then
    say "write path (bench/writes.sh)"
    if ! WHISTLE_BIN="$BIN" DUR="$DUR" WARMUP="$WARMUP" bash "$ROOT/bench/writes.sh" >"$W_MD" \
        2>"$TMP/writes.log"; then
        {
            echo "bench/writes.sh failed; the end of its output:"
            echo
            tail -n 20 "$TMP/writes.log" | sed 's/^/    /'
        } >"$W_MD"
    fi
    cat "$TMP/writes.log" >&2
fi

# A read under a flood of failed sign-ins (issue 14 item 7): bench/signins.sh; with
# WHISTLE_BIN_BEFORE set, before/after in the same run.
S_MD="$TMP/signins.md"
: >"$S_MD"
if [ "${BENCH_SIGNINS:-1}" = 1 ]; then
    say "a read under failed sign-ins (bench/signins.sh)"
    if ! WHISTLE_BIN="$BIN" bash "$ROOT/bench/signins.sh" >"$S_MD" 2>"$TMP/signins.log"; then
        {
            echo "bench/signins.sh failed; the end of its output:"
            echo
            tail -n 20 "$TMP/signins.log" | sed 's/^/    /'
        } >"$S_MD"
    fi
    cat "$TMP/signins.log" >&2
fi

# Forgot-password does the same work for every address (issue 14 item 8): bench/forgot.sh;
# with WHISTLE_BIN_BEFORE set, before/after in the same run.
F_MD="$TMP/forgot.md"
: >"$F_MD"
if [ "${BENCH_FORGOT:-1}" = 1 ]; then
    say "forgot-password for a registered and an unknown address (bench/forgot.sh)"
    if ! WHISTLE_BIN="$BIN" BENCH_F_ROUNDS="${BENCH_F_ROUNDS:-3}" bash "$ROOT/bench/forgot.sh" \
        >"$F_MD" 2>"$TMP/forgot.log"; then
        {
            echo "bench/forgot.sh failed; the end of its output:"
            echo
            tail -n 20 "$TMP/forgot.log" | sed 's/^/    /'
        } >"$F_MD"
    fi
    cat "$TMP/forgot.log" >&2
fi

NOTE_FILE="$TMP/note.md"
# Keep the hand-written "Where the time goes" section across runs.
if [ -f "$OUT" ] && grep -q '^## Where the time goes' "$OUT"; then
    awk '/^## Where the time goes/ { on = 1; next } on && /^## / { exit } on { print }' "$OUT" >"$NOTE_FILE"
else
    printf '\n_To be filled in by the engineer: profile of the hot paths (what the measured\nfigures are spent on), with reference to ARCHITECTURE.md'"'"'s performance notes._\n\n' >"$NOTE_FILE"
fi

{
    echo "# Benchmarks"
    echo
    if [ "$QUICK" = 1 ]; then
        echo "> **Quick run** (\`BENCH_QUICK=1\`): short runs on one scale, for development only."
        echo
    fi
    echo "Written by \`bench/run.sh\`; regenerate with:"
    echo
    echo '```'
    if [ "$QUICK" = 1 ]; then echo "BENCH_QUICK=1 make bench"; else echo "make bench"; fi
    echo '```'
    echo
    echo "## Machine and run"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- CPU: $(nproc) cores, $CPU_MODEL"
    echo "- RAM: $MEM"
    echo "- Kernel: $(uname -srm)"
    echo "- Tools: $(wrk -v 2>&1 | head -n1 | awk '{ print $1, $2 }'), $(nginx -v 2>&1 | sed 's/^nginx version: //'), sqlite3 $(sqlite3 --version | awk '{ print $1 }')"
    if [ -n "$COMMIT" ]; then echo "- Whistle: commit \`$COMMIT\` (HEAD at run time; the working tree may have differed)"; fi
    echo "- Server: \`$BIN serve --db … --listen 127.0.0.1:PORT --base-url http://127.0.0.1:PORT${BENCH_THREADS:+ --threads $BENCH_THREADS}\` (threads: the server's default, one per core, unless BENCH_THREADS is set), access log to a file$([ "$NOCACHE" = 1 ] && echo "; rows \`whistle-nocache\` add \`--no-cache\`")"
    echo "- Load generator: \`wrk --latency -t$WRK_THREADS -c{$C_LOW,$C_HIGH} -d$DUR\`, each measured run preceded by a \`-d$WARMUP\` warm-up at the same concurrency; all on 127.0.0.1"
    echo "- Baseline: nginx, 2 worker processes, serving the byte-identical bodies from static files (checked with \`cmp\` before measuring) with the same \`Content-Type\`, \`Cache-Control: no-store\`, \`X-Content-Type-Options: nosniff\` and an \`X-Request-Id\`; \`keepalive_requests 1000000\`, \`sendfile on\`, access log off"
    echo "- Data: $(echo $SCALES | sed 's/ / and /') incidents loaded by \`bench/seed.sql\` (64 teams, incidents/10 games, one question, 1–2 sources and 2–3 vote-tally rows per incident); build time:$BUILD_NOTES"
    echo "- Requests: \`GET /api/v1/incidents/{id}\` for one incident from the middle of the data set ($DETAIL_BYTES bytes at $B incidents), \`GET /api/v1/incidents?limit=20\` ($LIST_BYTES bytes); rotating runs (\`single-rot\`, \`list-rot\`): \`wrk -s bench/rotate.lua\` cycling through up to $ROTATE incident ids / \`to=\` list windows"
    echo
    echo "**wrk, Whistle and nginx share the same $(nproc) cores**: the load generator takes a large share of"
    echo "the CPU, so absolute figures understate what either server does on its own; the ratios"
    echo "(same machine, same run, same bytes) are what the targets are about."
    echo
    echo "## Results"
    echo
    cat "$TABLE"
    echo
    echo "\"Connections seen\": distinct client connections to the server's port, sampled twice a second"
    echo "during the run (one per wrk connection when keep-alive holds). \"Server closes\": connections"
    echo "the server closed first (its TIME_WAIT sockets). Both show whether keep-alive held."
    echo "\"Other load\": CPU that processes other than the benchmark's (whistle, nginx, wrk) used during"
    echo "the run, plus time stolen by the hypervisor, in % of the machine; a run above $DISTURBED% is"
    echo "measured again (up to $RETRIES times) and the least disturbed attempt is kept."
    echo
    echo "## Targets (issue 2)"
    echo
    echo "With the server as it runs by default (response cache on: the fixed URLs are served from"
    echo "it after the first request):"
    echo
    cat "$RATIOS"
    echo
    echo "The same request kinds over many different resources in turn (\`bench/rotate.lua\`: up to"
    echo "$ROTATE incidents spread over the data set, and as many list pages ending at different"
    echo "publication times), which the response cache mostly cannot answer:"
    echo
    cat "$RATIOS_ROT"
    echo
    if [ -s "$RATIOS_NC" ]; then
        echo "The same targets with \`serve --no-cache\` (every request runs the store queries and"
        echo "writes the JSON, as a request for a page nobody asked for recently does):"
        echo
        cat "$RATIOS_NC"
        echo
    fi
    if [ -s "$ANOMALIES" ]; then
        echo "## Anomalies seen during the run"
        echo
        cat "$ANOMALIES"
        echo
    fi
    echo "## Acknowledged leads survive SIGKILL (issue 3)"
    echo
    echo "\`tests/http/test_crash.py\`, run by \`make bench\` (and by \`make test\`):"
    echo
    cat "$CRASH_MD"
    echo
    if [ -s "$PG_MD" ]; then
        echo "## PostgreSQL and several nodes (issue 8)"
        echo
        echo "\`bench/pg.sh\`, run by \`make bench\` (docs/deploy.md):"
        echo
        cat "$PG_MD"
        echo
    fi
    if [ -s "$R_MD" ]; then
        echo "## Uncached reads, filters and gzip (issue 13)"
        echo
        echo "\`bench/reads.sh\`, run by \`make bench\` (docs/operators.md); the machine is shared:"
        echo "each figure carries the load average at its start, and the ratios against nginx in"
        echo "the same run are what count:"
        echo
        cat "$R_MD"
        echo
    fi
    if [ -s "$W_MD" ]; then
        echo "## Ballots: SQLite, PostgreSQL, nodes at a network distance (issue 20)"
        echo
        echo "\`bench/writes.sh\`, run by \`make bench\` (docs/scale.md):"
        echo
        cat "$W_MD"
        echo
    fi
    if [ -s "$S_MD" ]; then
        echo "## A read under a flood of failed sign-ins (issue 14 item 7)"
        echo
        echo "\`bench/signins.sh\`, run by \`make bench\` (docs/security.md):"
        echo
        cat "$S_MD"
        echo
    fi
    if [ -s "$F_MD" ]; then
        echo "## Forgot-password for a registered and an unknown address (issue 14 item 8)"
        echo
        echo "\`bench/forgot.sh\`, run by \`make bench\` (docs/security.md):"
        echo
        cat "$F_MD"
        echo
    fi
    echo "## Where the time goes"
    cat "$NOTE_FILE"
} >"$OUT"
say "wrote $OUT"

#!/usr/bin/env bash
# bench/reads.sh: the uncached read rotations of issue 13, run by `make bench` (bench/run.sh
# puts its Markdown, stdout, into BENCHMARKS.md); it also runs on its own.
#
# For each scale (BENCH_READS_SCALES, default 10000; a million takes ~10 minutes to load,
# or give an already migrated bench/seed.sql database as BENCH_READS_DB_<N>):
#   1. filters: bench/list_rotation.py, 2,000 random valid list queries (every filter of the
#      spec, deep offsets), one at a time; p50/p99 of the server's own time per request
#      (its access log) and its CPU per request
#   2. single: 2,000 different incidents, wrk -c32 with bench/rotate.lua, against nginx
#      serving the byte-identical files (checked with cmp first)
#   3. list: 2,000 different list pages (limit 20, offsets spread over the data), the same
#   3b. PostgreSQL (BENCH_READS_PG=1, the default when a PostgreSQL server is installed): the
#      same rows copied into a throwaway cluster on its Unix socket (tests/pgcluster.sh), one
#      --no-cache node on it, its bodies checked with cmp against the same nginx files, and
#      the single and list rotations again
#   3c. the same node with --version-lease BENCH_READS_LEASE ms (default 2): the rotations
#      without a version read's round trip per request
#   3d. both at a network distance (BENCH_READS_DELAY_US each way through bench/delayproxy.c,
#      default 500: a 1 ms round trip; 0 skips it), without a lease and with one of 5 ms
#   4. gzip: the list pages with Accept-Encoding: gzip against nginx gzip_static (files
#      compressed with gzip -6, checked to decompress to the same bytes), bytes and req/s;
#      and one list page again and again (Whistle's response cache keeps its gzip form)
# Whistle runs with --no-cache for 2-4 (2,000 URLs: no cache can answer them; the fixed-URL
# gzip run uses the cache). The machine is shared: every figure carries the 1-minute load
# average at its start; the ratios against nginx in the same run are what count.
#
# Each node's list index (src/store/listindex.h) is built before the rotations start (its log
# says when; BENCH_READS_SERVE_ARGS="--list-index-max 0" measures without it).
#
# Environment: WHISTLE_BIN, BENCH_READS_SCALES, BENCH_READS_DB_<N>, BENCH_READS_PG_DB_<N> (the
# URI of a PostgreSQL database holding the same rows, copied by bench_copy_to_pg, to use instead
# of a throwaway cluster's: a million took 29 minutes to copy and render here), DUR (default 10s),
# WARMUP (default 3s), BENCH_READS_CONNS (default 32), BENCH_READS_COUNT (default 2000),
# BENCH_READS_SERVE_ARGS (more `whistle serve` options for the --no-cache node), BENCH_READS_LEASE
# (the lease of 3c in ms, default 2), BENCH_READS_PG
# (1: add the PostgreSQL rotations, 0: skip them; default 1 when PostgreSQL is installed),
# PGCLUSTER_SHARED_BUFFERS and PGCLUSTER_HUGE_PAGES (the throwaway cluster's, tests/pgcluster.sh;
# defaults 4GB and auto).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh" # free_port, start_node, stop_all, to_ms
BIN=${WHISTLE_BIN:-build/whistle}
SCALES=${BENCH_READS_SCALES:-10000}
DUR=${DUR:-10s}
WARMUP=${WARMUP:-3s}
C=${BENCH_READS_CONNS:-32}
COUNT=${BENCH_READS_COUNT:-2000}
LEASE=${BENCH_READS_LEASE:-2}
DELAY_US=${BENCH_READS_DELAY_US:-500}
PXPID=""
PXDIR=""

say() { echo "bench-reads: $*" >&2; }
die() {
    say "$*"
    exit 1
}
for tool in wrk nginx sqlite3 curl gzip python3; do
    command -v "$tool" >/dev/null 2>&1 || die "missing $tool (make deps-bench)"
done

# nginx reads the files as its worker user: the directory must be world-readable
TMP=$(mktemp -d /tmp/whistle-benchreads.XXXXXX)
chmod 755 "$TMP"
PIDS=()
NPID=""
cleanup() {
    stop_all
    if [ -n "$NPID" ]; then kill -TERM "$NPID" 2>/dev/null || true; wait "$NPID" 2>/dev/null || true; fi
    if [ -n "$PXPID" ]; then kill -TERM "$PXPID" 2>/dev/null || true; wait "$PXPID" 2>/dev/null || true; fi
    if [ -n "$PXDIR" ]; then rm -rf "$PXDIR"; fi
    rm -rf "$TMP"
}
trap cleanup EXIT

# the PostgreSQL rotations: a throwaway cluster directly under /tmp (as root the server runs
# as postgres, which must reach its directory; TMP is private to this user)
PG_ON=${BENCH_READS_PG:-}
if [ -z "$PG_ON" ]; then
    if bash tests/pgcluster.sh available >/dev/null 2>&1; then PG_ON=1; else PG_ON=0; fi
fi
PGDIR=""
PG_BASE=""
# the throwaway cluster's shared_buffers (tests/pgcluster.sh; its tests' default is 64MB): what
# a deployment would give it, so that a million incidents' hot rows stay in its own memory
export PGCLUSTER_SHARED_BUFFERS=${PGCLUSTER_SHARED_BUFFERS:-4GB}
# and in huge pages when they can be had (as root: tests/pgcluster.sh reserves them), as the
# PostgreSQL documentation advises for large shared memory: with 4 KiB pages the filter
# rotation's p99 at a million was twice as long (BENCHMARKS.md, session 29)
export PGCLUSTER_HUGE_PAGES=${PGCLUSTER_HUGE_PAGES:-auto}
if [ "$PG_ON" = 1 ]; then
    bench_need_pg psql
    PGDIR=$(mktemp -d /tmp/whistle-benchreads-pg.XXXXXX)
fi
pg_cleanup() {
    cleanup
    if [ -n "$PGDIR" ]; then bash tests/pgcluster.sh stop "$PGDIR" >/dev/null 2>&1 || true; rm -rf "$PGDIR"; fi
}
trap pg_cleanup EXIT

load() { cut -d' ' -f1 /proc/loadavg; }

# wait_list_index LOG [pg]: until the node's list index is built, and with pg (a node on
# PostgreSQL) its copy of the bodies loaded (each bounded: 300 s)
SERVE_ARGS=${BENCH_READS_SERVE_ARGS:-}
wait_list_index() {
    case " $SERVE_ARGS " in *" --list-index-max 0 "*) ;; *)
        for _ in $(seq 1 3000); do
            grep -qs "listindex: .* built" "$1" && { say "$(grep -m1 'listindex: .* built' "$1")"; break; }
            sleep 0.1
        done
        grep -qs "listindex: .* built" "$1" || say "no list index after 300 s: lists are answered from SQL" ;;
    esac
    # and, on PostgreSQL, the node's copy of the bodies (store/bodies.h; a million: ~30 s)
    [ "${2:-}" = pg ] || return 0
    case " $SERVE_ARGS " in *" --fragment-bodies-mb 0 "*) return 0 ;; esac
    for _ in $(seq 1 3000); do
        grep -qs "bodies: " "$1" && { say "$(grep -m1 'bodies: ' "$1")"; return 0; }
        sleep 0.1
    done
    say "the copy of the bodies did not load in 300 s"
}

# wrk_run URL PATHS|- [WRK_OPTION...]: a warm-up, then the measured run, cycling through the
# paths in file PATHS (bench/rotate.lua) or asking for URL alone; prints "rps p50 p99 load"
wrk_run() {
    local url=$1 paths=$2 out l
    shift 2
    local rot=()
    if [ "$paths" != - ]; then rot=(-s bench/rotate.lua "$url" -- "$paths"); else rot=("$url"); fi
    wrk -t2 -c"$C" -d"$WARMUP" "$@" "${rot[@]}" >/dev/null 2>&1 || true
    l=$(load)
    out=$(wrk --latency -t2 -c"$C" -d"$DUR" "$@" "${rot[@]}" 2>&1) || die "wrk failed: $out"
    if echo "$out" | grep -q "Non-2xx"; then die "non-2xx answers: $out"; fi
    local rps p50 p99
    rps=$(echo "$out" | awk '/^Requests\/sec/ { printf "%d", $2 }')
    p50=$(to_ms "$(echo "$out" | awk '$1 == "50%" { print $2 }')")
    p99=$(to_ms "$(echo "$out" | awk '$1 == "99%" { print $2 }')")
    echo "$rps $p50 $p99 $l"
}

start_nginx() {
    local www=$1 user_line=""
    NPORT=$(free_port)
    mkdir -p "$TMP/nginx/tmp" "$TMP/nginx/logs"
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
    server_tokens off;
    open_file_cache max=8000 inactive=600s;
    client_body_temp_path $TMP/nginx/tmp/body;
    proxy_temp_path $TMP/nginx/tmp/proxy;
    fastcgi_temp_path $TMP/nginx/tmp/fastcgi;
    uwsgi_temp_path $TMP/nginx/tmp/uwsgi;
    scgi_temp_path $TMP/nginx/tmp/scgi;
    types { }
    default_type "application/json";
    gzip_static on;
    gzip_vary on;
    server {
        listen 127.0.0.1:$NPORT;
        root $www;
        add_header Cache-Control "no-store" always;
        add_header X-Content-Type-Options "nosniff" always;
        add_header X-Request-Id "0123456789abcdef" always;
        location = /api/v1/incidents { try_files /lists/\$arg_offset.json =404; }
        location /api/v1/incidents/ { try_files /one/\$uri.json =404; }
        location / { return 404; }
    }
}
EOF
    nginx -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -e "$TMP/nginx/logs/error.log" \
        >/dev/null 2>&1 </dev/null &
    NPID=$!
    for _ in $(seq 1 100); do
        curl -s -o /dev/null "http://127.0.0.1:$NPORT/" 2>/dev/null && return 0
        kill -0 "$NPID" 2>/dev/null || die "nginx exited: $(cat "$TMP/nginx/logs/error.log")"
        sleep 0.1
    done
    die "nginx did not answer within 10 s"
}

stop_nginx() {
    kill -TERM "$NPID" 2>/dev/null || true
    wait "$NPID" 2>/dev/null || true
    NPID=""
}

# filter_rotation WHAT [pg]: bench/list_rotation.py (COUNT random valid list queries, every filter
# of the spec, deep offsets, one at a time) against the node just started; its server time
# p50/p99 from the node's access log and its CPU a request, a line of NOTES
filter_rotation() {
    local port=${NODE_PORTS[0]} pid=${PIDS[0]} log l rot server
    log="$TMP/node-$port.log"
    wait_list_index "$log" "$2"
    l=$(load)
    rot=$(python3 bench/list_rotation.py "http://127.0.0.1:$port" "$COUNT" 13 "$N" 0 "$pid" | head -1)
    server=$(python3 - "$log" <<'PY'
import re, sys
t = sorted(int(m.group(1)) for m in re.finditer(
    r"access: GET /api/v1/(?:incidents|games) \d+ \d+ (\d+)us", open(sys.argv[1]).read()))
p = lambda q: t[min(len(t) - 1, int(q * len(t)))] / 1000
print("%d requests, server time p50 %.2f ms, p99 %.2f ms, max %.1f ms" % (len(t), p(.5), p(.99), t[-1] / 1000))
PY
)
    echo "- $N incidents$1, $COUNT random filter+offset queries: $server; $(echo "$rot" | sed 's/.*server CPU/server CPU/; s/  load.*//') (load average $l at the start)" >>"$NOTES"
}

# compare ROTATION LABEL NGINX_LABEL PORT PATHS|- PATH [WRK_OPTION...]: the same wrk run
# against Whistle on PORT and then nginx (wrk_run: the paths in file PATHS, or - and PATH
# alone); prints the table's two rows, Whistle's with its ratio to nginx
compare() {
    local what=$1 label=$2 nlabel=$3 wport=$4 paths=$5 path=$6 w n_ r
    shift 6
    w=$(wrk_run "http://127.0.0.1:$wport$path" "$paths" "$@")
    n_=$(wrk_run "http://127.0.0.1:$NPORT$path" "$paths" "$@")
    r=$(awk -v a="${w%% *}" -v b="${n_%% *}" 'BEGIN { printf "%.2f", a / b }')
    # shellcheck disable=SC2086
    set -- $w
    echo "| $N | $what | $label | $1 | $2 | $3 | $r | $4 |"
    # shellcheck disable=SC2086
    set -- $n_
    echo "| $N | $what | $nlabel | $1 | $2 | $3 | | $4 |"
}

# same_bodies PORT WHO: every 100th path of the rotations, as the server on PORT answers it,
# byte for byte the file nginx serves for it (cmp); dies naming WHO otherwise
same_bodies() {
    local p f
    while read -r p; do
        curl -s -o "$TMP/cmp.body" "http://127.0.0.1:$1$p"
        f="$TMP/www/one$p.json"
        [ -f "$f" ] || f="$TMP/www/lists/${p##*offset=}.json"
        cmp -s "$TMP/cmp.body" "$f" || die "$2's body for $p differs from the file nginx serves"
    done < <(sed -n '1~100p' "$TMP/single.paths" "$TMP/list.paths")
}

echo "| incidents | rotation | server | req/s | p50 ms | p99 ms | ratio to nginx | load avg |"
echo "|---:|---|---|---:|---:|---:|---:|---:|"
NOTES="$TMP/notes.md"
: >"$NOTES"
for N in $SCALES; do
    var="BENCH_READS_DB_$N"
    DB=${!var:-}
    if [ -z "$DB" ]; then
        DB="$TMP/db-$N.db"
        say "building $N incidents"
        "$BIN" migrate --db "$DB" >/dev/null || die "migrate failed"
        sqlite3 -bail "$DB" ".parameter set @n $N" ".read $ROOT/bench/seed.sql" >/dev/null ||
            die "bench/seed.sql failed"
    fi
    "$BIN" migrate --db "$DB" >/dev/null || die "migrate $DB failed"

    # 1. random filters and offsets, one at a time, server time from the access log. The
    # file is read into the page cache first: the rotation measures what a query costs, and
    # some kernels (this machine's) drop a large file's pages within minutes of its last read
    cat "$DB" >/dev/null
    # shellcheck disable=SC2086
    start_node "$DB" --no-cache $SERVE_ARGS
    filter_rotation "" ""
    port=${NODE_PORTS[0]}

    # 2-4. the rotations' paths, the bodies Whistle sends, the same files for nginx
    sqlite3 "$DB" "SELECT id FROM incidents WHERE visibility = 'published'
                   AND rowid % max(1, $N / $COUNT) = 0 LIMIT $COUNT" >"$TMP/ids"
    python3 - "http://127.0.0.1:$port" "$N" "$COUNT" "$TMP" <<'PY' || die "collecting bodies failed"
import gzip, http.client, os, sys, urllib.parse
base, n, count, tmp = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
u = urllib.parse.urlsplit(base)
c = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
def get(path, enc=None):
    c.request("GET", path, headers={"Accept-Encoding": enc} if enc else {})
    r = c.getresponse()
    body = r.read()
    assert r.status == 200, (path, r.status, body[:200])
    return body
ids = open(os.path.join(tmp, "ids")).read().split()
www = os.path.join(tmp, "www")
os.makedirs(os.path.join(www, "one/api/v1/incidents"), exist_ok=True)
os.makedirs(os.path.join(www, "lists"), exist_ok=True)
with open(os.path.join(tmp, "single.paths"), "w") as f:
    for i in ids:
        p = "/api/v1/incidents/" + i
        open(os.path.join(www, "one" + p + ".json"), "wb").write(get(p))
        f.write(p + "\n")
lstep = max(1, min(n, 100000) // count)
with open(os.path.join(tmp, "list.paths"), "w") as f:
    for k in range(count):
        p = "/api/v1/incidents?limit=20&offset=%d" % (k * lstep)
        body = get(p)
        open(os.path.join(www, "lists", "%d.json" % (k * lstep)), "wb").write(body)
        # Whistle's gzip form decompresses to the same bytes
        assert gzip.decompress(get(p, "gzip")) == body, p
        f.write(p + "\n")
print(len(ids), "incidents,", count, "list pages", file=sys.stderr)
PY
    # nginx gzip_static serves FILE.gz next to FILE
    find "$TMP/www/lists" -name '*.json' -exec gzip -6 -n -k {} +
    chmod -R a+rX "$TMP/www"
    start_nginx "$TMP/www"
    # cmp every body nginx sends with Whistle's (plain), and the gzip forms decompressed
    same_bodies "$NPORT" nginx
    zb=$(curl -s -H "Accept-Encoding: gzip" "http://127.0.0.1:$NPORT/api/v1/incidents?limit=20&offset=0" | gunzip | cmp - "$TMP/www/lists/0.json" && echo ok)
    [ "$zb" = ok ] || die "nginx's gzip body differs"
    say "bodies checked with cmp (every 100th path, both servers)"

    for kind in single list; do
        compare "$COUNT different ${kind}s" "whistle --no-cache" nginx "$port" "$TMP/$kind.paths" ""
    done
    compare "$COUNT different lists, gzip" "whistle --no-cache" "nginx gzip_static" "$port" \
        "$TMP/list.paths" "" -H "Accept-Encoding: gzip"
    plain=$(stat -c %s "$TMP/www/lists/0.json")
    wz=$(curl -s -H "Accept-Encoding: gzip" "http://127.0.0.1:$port/api/v1/incidents?limit=20&offset=0" | wc -c)
    nz=$(stat -c %s "$TMP/www/lists/0.json.gz")
    echo "- $N incidents, list page \`?limit=20&offset=0\`: $plain bytes plain, $wz gzip from Whistle --no-cache (zlib level 1; 6 for a body its cache keeps), $nz from nginx gzip_static (gzip -6)" >>"$NOTES"
    stop_all

    # 3b. the same rotations with the rows in PostgreSQL (Unix socket), the same nginx files
    if [ "$PG_ON" = 1 ]; then
        var="BENCH_READS_PG_DB_$N"
        PG_DB=${!var:-}
        if [ -z "$PG_DB" ]; then
            [ -n "$PG_BASE" ] || PG_BASE=$(bash tests/pgcluster.sh start "$PGDIR")
            "$PSQL" -X -q -d "$PG_BASE" -c "CREATE DATABASE bench_$N" >/dev/null
            PG_DB=${PG_BASE/\/postgres\?//bench_$N?}
            "$BIN" migrate --db "$PG_DB" >/dev/null || die "migrate $PG_DB failed"
            bench_copy_to_pg "$DB" "$PG_DB" "$TMP/copy.sql" # migrates again: the fragments
        else
            "$BIN" migrate --db "$PG_DB" >/dev/null || die "migrate $PG_DB failed"
        fi
        # the tables and keys the reads use into PostgreSQL's buffers, as the SQLite file is
        # read into the page cache above (pg_prewarm, in PostgreSQL's contrib)
        "$PSQL" -X -q -d "$PG_DB" -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" \
            -c "SELECT pg_prewarm(r) FROM unnest(CAST(ARRAY['incidents', 'incidents_pkey',
                'incident_fragments', 'incident_fragments_pkey', 'vote_tallies',
                'vote_tally_slots_pkey', 'fragment_stale'] AS regclass[])) r" >/dev/null 2>&1 ||
            say "no pg_prewarm: PostgreSQL's reads start from a cold cache"
        echo "- $N incidents, PostgreSQL's shared memory: $(bench_pg_huge_pages "$PG_DB")" >>"$NOTES"
        # shellcheck disable=SC2086
        start_node "$PG_DB" --no-cache $SERVE_ARGS
        filter_rotation " on PostgreSQL" pg
        port=${NODE_PORTS[0]}
        same_bodies "$port" "Whistle on PostgreSQL"
        say "PostgreSQL bodies checked with cmp (every 100th path): the same as on SQLite"
        for kind in single list; do
            compare "$COUNT different ${kind}s" "whistle --no-cache, PostgreSQL" nginx "$port" \
                "$TMP/$kind.paths" ""
        done
        stop_all
        # 3c. the same with a version lease (store.h store_lease_setup): no round trip a read
        # shellcheck disable=SC2086
        start_node "$PG_DB" --no-cache --version-lease "$LEASE" $SERVE_ARGS
        port=${NODE_PORTS[0]}
        wait_list_index "$TMP/node-$port.log" pg
        same_bodies "$port" "Whistle on PostgreSQL with a version lease"
        for kind in single list; do
            compare "$COUNT different ${kind}s" "whistle --no-cache, PostgreSQL, lease $LEASE ms" \
                nginx "$port" "$TMP/$kind.paths" ""
        done
        stop_all
        # 3d. both at a network distance: bench/delayproxy.c holds each chunk DELAY_US each way
        # between the node and PostgreSQL, without a lease and with one of 5 ms
        if [ "$DELAY_US" != 0 ]; then
            sock=$(echo "$PG_DB" | sed -n 's/.*[?&]host=\([^&]*\).*/\1/p')
            [ -n "$sock" ] || die "cannot tell the Unix socket directory of $PG_DB"
            cc -O2 -pthread -o "$TMP/delayproxy" bench/delayproxy.c || die "cannot build bench/delayproxy.c"
            PXDIR=$(mktemp -d /tmp/whistle-benchreads-px.XXXXXX)
            "$TMP/delayproxy" "$PXDIR/.s.PGSQL.5432" "$sock/.s.PGSQL.5432" "$DELAY_US" &
            PXPID=$!
            PGD=${PG_DB/host=$sock/host=$PXDIR}
            rtt=$(awk -v d="$DELAY_US" 'BEGIN { printf "%g", 2 * d / 1000 }')
            for lease in 0 5; do
                extra=()
                label="whistle --no-cache, PostgreSQL at $rtt ms"
                if [ "$lease" != 0 ]; then extra=(--version-lease "$lease"); label="$label, lease $lease ms"; fi
                # shellcheck disable=SC2086
                start_node "$PGD" --no-cache "${extra[@]}" $SERVE_ARGS
                port=${NODE_PORTS[0]}
                wait_list_index "$TMP/node-$port.log" pg
                for kind in single list; do
                    compare "$COUNT different ${kind}s" "$label" nginx "$port" "$TMP/$kind.paths" ""
                done
                stop_all
            done
            kill -TERM "$PXPID" 2>/dev/null || true
            wait "$PXPID" 2>/dev/null || true
            PXPID=""
            rm -rf "$PXDIR"
        fi
    fi

    # one list page again and again: Whistle's cache holds the plain and the gzip form
    start_node "$DB"
    port=${NODE_PORTS[0]}
    for enc in identity gzip; do
        compare "one list page, $enc" "whistle (cache)" nginx "$port" - \
            "/api/v1/incidents?limit=20&offset=0" -H "Accept-Encoding: $enc"
    done
    stop_all
    stop_nginx
    rm -rf "$TMP/www" "$TMP/nginx"
done
echo
cat "$NOTES"

# bench/lib.sh: shell functions shared by bench/run.sh, bench/pg.sh and bench/writes.sh
# (sourced; each script defines its own die()).

# free_port: a TCP port on 127.0.0.1 that nothing listens on (checked, not reserved), below
# the kernel's ephemeral range: the benchmarks' client sockets take their ports from that
# range, and a port one of them holds cannot be bound (a node failed to start so)
free_port() {
    local p i lo
    lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
    [ "$lo" -gt 21000 ] 2>/dev/null || lo=32768
    for i in $(seq 1 200); do
        p=$((20000 + RANDOM % (lo - 20000)))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return 0
        fi
    done
    die "no free port found"
}

# bench_need_pg TOOL...: dies unless every TOOL and a PostgreSQL server are installed; sets
# PSQL (the newest installed psql).
bench_need_pg() {
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null 2>&1 || die "missing $tool (make deps-bench deps-pg)"
    done
    bash tests/pgcluster.sh available || die "no PostgreSQL server installed (make deps-pg)"
    PSQL=$(ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -1)
    [ -n "$PSQL" ] || PSQL=psql
}

# bench_pg_huge_pages URI: how much of the shared memory of the PostgreSQL server at URI sits in
# huge pages ("6328 MiB in huge pages", "none: 4 KiB pages"), read from its postmaster's
# mappings (this user must be able to read /proc/PID/smaps: root, or the server's owner);
# "unknown" when it cannot be told. Needs PSQL.
bench_pg_huge_pages() {
    local data pid
    data=$("$PSQL" -X -A -t -q -d "$1" -c "SHOW data_directory" 2>/dev/null) || data=""
    pid=$(head -1 "$data/postmaster.pid" 2>/dev/null) || pid=""
    if [ -z "$pid" ] || [ ! -r "/proc/$pid/smaps" ]; then
        echo unknown
        return
    fi
    awk '/^Size:/ { s = $2 } /^KernelPageSize:/ { if ($2 > 4) t += s }
        END { if (t) printf "%d MiB in huge pages\n", t / 1024; else print "none: 4 KiB pages" }' \
        "/proc/$pid/smaps"
}

# The functions below use the caller's TMP, BIN, PIDS (an array) and die(), and PSQL for
# bench_copy_to_pg.

NODE_PORTS=()
start_node() { # start_node DB [EXTRA...]: one `whistle serve` on a free port
    local db=$1 port log
    shift
    port=$(free_port)
    log="$TMP/node-$port.log"
    local args=(serve --db "$db" --listen "127.0.0.1:$port" --base-url http://bench.test --no-worker)
    if [ -n "${BENCH_THREADS:-}" ]; then args+=(--threads "$BENCH_THREADS"); fi
    "$BIN" "${args[@]}" "$@" >"$log" 2>&1 </dev/null &
    PIDS+=($!)
    for _ in $(seq 1 300); do
        grep -qs "listening on" "$log" && break
        sleep 0.05
    done
    grep -q "listening on" "$log" || die "node did not start: $(tail -5 "$log")"
    NODE_PORTS+=("$port")
}

# start_haproxy: HAProxy in front of NODE_PORTS, on HA_PORT; BENCH_HA_BALANCE (roundrobin)
# is its balance algorithm, BENCH_HA_MAXCONN (none) each node's maxconn: requests beyond it
# wait in HAProxy's queue, first come first served
start_haproxy() {
    HA_PORT=$(free_port)
    local maxconn=
    if [ -n "${BENCH_HA_MAXCONN:-}" ]; then maxconn=" maxconn $BENCH_HA_MAXCONN"; fi
    {
        printf 'global\n    maxconn 4096\n\ndefaults\n    mode http\n'
        printf '    timeout connect 2s\n    timeout client 30s\n    timeout server 30s\n\n'
        printf 'frontend public\n    bind 127.0.0.1:%s\n    default_backend whistle\n\n' "$HA_PORT"
        printf 'backend whistle\n    balance %s\n    option httpchk GET /readyz\n' \
            "${BENCH_HA_BALANCE:-roundrobin}"
        printf '    default-server check inter 2s%s\n' "$maxconn"
        local i=0 p
        for p in "${NODE_PORTS[@]}"; do
            i=$((i + 1))
            printf '    server n%s 127.0.0.1:%s\n' "$i" "$p"
        done
    } >"$TMP/haproxy.cfg"
    haproxy -db -f "$TMP/haproxy.cfg" >"$TMP/haproxy.log" 2>&1 </dev/null &
    PIDS+=($!)
    for _ in $(seq 1 100); do
        curl -fsS -o /dev/null "http://127.0.0.1:$HA_PORT/readyz" 2>/dev/null && return 0
        sleep 0.05
    done
    die "haproxy did not start: $(cat "$TMP/haproxy.log")"
}

stop_all() {
    local p
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    PIDS=()
    NODE_PORTS=()
}

to_ms() { # wrk latency (e.g. 812.00us, 1.20ms, 2.01s) → milliseconds
    awk -v v="$1" 'BEGIN { u = v; sub(/[0-9.]+/, "", u); x = v + 0
        if (u == "us") x /= 1000; else if (u == "s") x *= 1000; printf "%.3f", x }'
}

# bench_copy_to_pg SQLITE_DB PG_URI SCRIPT: the seeded rows, row for row, into PostgreSQL with
# COPY (sqlite3's CSV writes NULL unquoted and empty and an empty text quoted, which is how
# PostgreSQL's CSV reads them; a million incidents as INSERT text took far longer), in one
# transaction, then statistics; SCRIPT is the psql script, the tables' CSV files beside it.
# Then `whistle migrate` (BIN) renders their fragments, as a deployment's incidents have them.
# BENCH_COPIED_ROWS is the number of rows copied.
bench_copy_to_pg() {
    local t
    BENCH_COPIED_ROWS=0
    {
        for t in teams games incidents questions sources vote_tallies; do
            sqlite3 -bail -csv "$1" "SELECT * FROM $t" >"$3.$t.csv"
            BENCH_COPIED_ROWS=$((BENCH_COPIED_ROWS + $(sqlite3 "$1" "SELECT count(*) FROM $t")))
            echo "\\copy $t FROM '$3.$t.csv' WITH (FORMAT csv)"
        done
        echo "ANALYZE;"
    } >"$3"
    "$PSQL" -X -q -1 -v ON_ERROR_STOP=1 -d "$2" -f "$3" >/dev/null
    rm -f "$3".*.csv
    "$BIN" migrate --db "$2" >/dev/null
}

#!/usr/bin/env bash
# pgcluster.sh start DIR: initialise and start a throwaway PostgreSQL cluster in DIR (Unix
# socket in DIR, no TCP listener, trust authentication, fsync off: test data only) and print
# the libpq URI of its maintenance database. pgcluster.sh stop DIR: stop it (DIR stays for
# the caller to remove). pgcluster.sh down DIR / up DIR: stop it (fast: sessions are
# terminated) and start it again, for outage tests. pgcluster.sh available: exit 0 when
# initdb can be found. PGCLUSTER_DURABLE=1 (start and up) keeps PostgreSQL's defaults for
# fsync, synchronous_commit and full_page_writes: every commit waits for its WAL flush (a
# benchmark's durable row; the tests run without). PGCLUSTER_SHARED_BUFFERS (start and up;
# default 64MB) is its shared_buffers (a benchmark at a million incidents gives it gigabytes,
# as a deployment would). PGCLUSTER_HUGE_PAGES (start and up; default off): 1 runs it with
# huge_pages=on, reserving the huge pages its shared memory needs first (vm.nr_hugepages,
# raised as root and never lowered; the server refuses to start without them); auto does the
# same when the pages can be had and falls back to PostgreSQL's default (try) when not. A
# million incidents' random reads touch gigabytes of shared buffers, and with 4 KiB pages each
# backend faults in every page it touches (BENCHMARKS.md, session 29).
# As root the cluster runs as the postgres user (initdb refuses root).
set -euo pipefail
cmd=${1:-}
dir=${2:-}
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$bindir" ] && command -v pg_config >/dev/null 2>&1; then bindir=$(pg_config --bindir); fi

# huge_pages_opt: the huge_pages setting of PGCLUSTER_HUGE_PAGES, after reserving the pages
# shared_buffers needs (and 256 MiB more for the rest of the server's shared memory)
huge_pages_opt() {
    local want=${PGCLUSTER_HUGE_PAGES:-0} sb=${PGCLUSTER_SHARED_BUFFERS:-64MB} mb page need have
    [ "$want" = 1 ] || [ "$want" = auto ] || return 0
    case "$sb" in
    *GB) mb=$((${sb%GB} * 1024)) ;;
    *MB) mb=${sb%MB} ;;
    *kB) mb=$((${sb%kB} / 1024)) ;;
    *) echo "PGCLUSTER_SHARED_BUFFERS=$sb: give it in kB, MB or GB" >&2; exit 2 ;;
    esac
    page=$(awk '/^Hugepagesize:/ {print int($2 / 1024)}' /proc/meminfo 2>/dev/null || true)
    if [ -z "$page" ] || [ "$page" -le 0 ]; then
        [ "$want" = 1 ] && { echo "this kernel has no huge pages" >&2; exit 1; }
        return 0
    fi
    need=$(((mb + 256 + page - 1) / page))
    have=$(cat /proc/sys/vm/nr_hugepages)
    if [ "$have" -lt "$need" ] && [ "$(id -u)" = 0 ]; then
        echo "$need" > /proc/sys/vm/nr_hugepages || true
        have=$(cat /proc/sys/vm/nr_hugepages)
    fi
    if [ "$have" -ge "$need" ]; then
        echo "-c huge_pages=on"
    elif [ "$want" = 1 ]; then
        echo "PGCLUSTER_HUGE_PAGES=1: $need huge pages needed, vm.nr_hugepages is $have" >&2
        exit 1
    fi
}

opts() {
    local fast="-c fsync=off -c synchronous_commit=off -c full_page_writes=off" huge
    if [ "${PGCLUSTER_DURABLE:-0}" = 1 ]; then fast=""; fi
    huge=$(huge_pages_opt) || return 1
    echo "-k $1 -c listen_addresses= $fast $huge -c max_connections=600 -c shared_buffers=${PGCLUSTER_SHARED_BUFFERS:-64MB}"
}

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# start_server DIR: start the initialised cluster in DIR with opts (start and up)
start_server() {
    local o
    o=$(opts "$1") || exit 1
    as_owner "$bindir/pg_ctl" -D "$1/data" -l "$1/server.log" -w -t 60 -o "$o" \
        start > /dev/null || { cat "$1/server.log" >&2; exit 1; }
}

case "$cmd" in
available)
    [ -n "$bindir" ] && [ -x "$bindir/initdb" ] && { [ "$(id -u)" != 0 ] || id postgres >/dev/null 2>&1; }
    ;;
start)
    [ -n "$dir" ] || { echo "usage: $0 start DIR" >&2; exit 2; }
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    as_owner "$bindir/initdb" -D "$dir/data" -A trust -U whistle -E UTF8 --locale=C --no-sync \
        > "$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    start_server "$dir"
    echo "postgresql://whistle@/postgres?host=$dir"
    ;;
up)
    start_server "$dir"
    ;;
down)
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop > /dev/null
    ;;
stop)
    [ -n "$dir" ] || { echo "usage: $0 stop DIR" >&2; exit 2; }
    [ -d "$dir/data" ] && as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop > /dev/null 2>&1 || true
    ;;
*)
    echo "usage: $0 start DIR | stop DIR | down DIR | up DIR | available" >&2
    exit 2
    ;;
esac

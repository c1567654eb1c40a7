# bench/lib.sh: shell functions shared by bench/run.sh and bench/pg.sh (sourced; each
# script defines its own die()).

# free_port: a TCP port on 127.0.0.1 that nothing listens on (checked, not reserved).
free_port() {
    local p i
    for i in $(seq 1 200); do
        p=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return 0
        fi
    done
    die "no free port found"
}

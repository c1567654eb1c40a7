#!/usr/bin/env bash
# Browser tests: Debian's headless Chromium (/usr/bin/chromium) driven by npm playwright-core.
# Imports tests/browser/fixture.json into a fresh database, serves it on a free loopback
# port, runs `node --test tests/browser/*.test.mjs` against it, then stops the server with
# SIGTERM and requires a clean exit (status 0). Screenshots land in tests/browser/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${WHISTLE_BIN:-build/whistle}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
[ -x "$BIN" ] || { echo "run.sh: $BIN is not an executable (build it, or set WHISTLE_BIN)" >&2; exit 1; }
[ -x /usr/bin/chromium ] || { echo "run.sh: /usr/bin/chromium is missing (apt-get install chromium)" >&2; exit 1; }

if [ ! -d node_modules/playwright-core ]; then
    npm ci --no-audit --no-fund
fi

TMP=$(mktemp -d)
server_pid=
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2> /dev/null; then
        kill -TERM "$server_pid" 2> /dev/null || true
        wait "$server_pid" 2> /dev/null || true
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT

"$BIN" import tests/browser/fixture.json --db "$TMP/db"

# --base-url must name the port, so pick a free one first (a small race, fine on loopback).
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
BASE_URL=http://localhost:$PORT

# no --smtp-url: account emails go to the log, where developers.test.mjs reads its link
"$BIN" serve --db "$TMP/db" --listen "127.0.0.1:$PORT" --base-url "$BASE_URL" --poll-ms 50 \
    > "$TMP/server.log" 2>&1 &
server_pid=$!

ready=
for _ in $(seq 1 100); do
    if ! kill -0 "$server_pid" 2> /dev/null; then
        echo "run.sh: the server exited before it was ready:" >&2
        cat "$TMP/server.log" >&2
        exit 1
    fi
    if curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/healthz" 2> /dev/null; then
        ready=1
        break
    fi
    sleep 0.1
done
[ -n "$ready" ] || { echo "run.sh: GET /healthz never answered" >&2; cat "$TMP/server.log" >&2; exit 1; }

mkdir -p tests/browser/artifacts
test_rc=0
BASE_URL=$BASE_URL SERVER_LOG=$TMP/server.log WHISTLE_BIN=$BIN WHISTLE_DB=$TMP/db \
    node --test tests/browser/*.test.mjs || test_rc=$?

if ! kill -TERM "$server_pid" 2> /dev/null; then
    echo "run.sh: the server died during the tests; its log:" >&2
    cat "$TMP/server.log" >&2
    exit 1
fi
server_rc=0
wait "$server_pid" || server_rc=$?
server_pid=
if [ "$server_rc" -ne 0 ]; then
    echo "run.sh: the server exited with status $server_rc after SIGTERM (want 0); its log:" >&2
    cat "$TMP/server.log" >&2
    exit 1
fi
if [ "$test_rc" -ne 0 ]; then
    echo "run.sh: browser tests failed; server log:" >&2
    tail -n 50 "$TMP/server.log" >&2
fi
exit "$test_rc"

#!/usr/bin/env bash
# The whole suite behind `make test`: style, OpenAPI lint, C unit tests, black-box tests.
# Prints a closing "N passed, N failed" line and exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${WHISTLE_BIN:-build/whistle}
passed=0
failed=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# PostgreSQL for the second black-box run and the PostgreSQL unit tests: a throwaway cluster
# in a temporary directory (tests/pgcluster.sh), stopped on exit. WHISTLE_TEST_PG=URI uses
# an existing cluster instead; WHISTLE_TEST_PG=skip runs SQLite only. .ci/run installs
# PostgreSQL (make deps-pg), so there both drivers always run.
pg=${WHISTLE_TEST_PG:-}
pgdir=
if [ "$pg" = skip ]; then
    pg=
    echo "== postgresql: skipped (WHISTLE_TEST_PG=skip)"
elif [ -z "$pg" ] && bash tests/pgcluster.sh available; then
    pgdir=$(mktemp -d /tmp/whistle-pg.XXXXXX)
    trap 'bash tests/pgcluster.sh stop "$pgdir"; rm -rf "$out" "$pgdir"' EXIT
    if ! pg=$(bash tests/pgcluster.sh start "$pgdir"); then
        echo "FAILED: cannot start a throwaway PostgreSQL cluster"
        failed=$((failed + 1))
        pg=
    fi
elif [ -z "$pg" ]; then
    echo "== postgresql: skipped (no PostgreSQL server installed; make deps-pg installs it)"
fi

# every phase prints how long it took, so that a slow CI run says where its time went
took() { # start second
    echo "   ($(($SECONDS - $1)) s)"
}

step() { # name, command...
    local name=$1 t0=$SECONDS
    shift
    echo "== $name"
    if "$@"; then
        took "$t0"
        passed=$((passed + 1))
    else
        echo "FAILED: $name"
        failed=$((failed + 1))
    fi
}

# TSAN=1 (make test TSAN=1): the ThreadSanitizer build runs the unit tests and the mixed
# concurrent load test only; the rest of the suite exercises no more threading and would
# take several times as long under TSan. A race report fails the binary (exit code 66).
tsan=${TSAN:-}
blackbox_tests=tests/http
pg_blackbox_tests=tests/http
# SANITIZE=1 (make test SANITIZE=1): the ASan + UBSan build runs every black-box test on SQLite
# and, on PostgreSQL, the files that reach C code of PostgreSQL's own: the connection lost and
# found again (store_heal, http_rules' outages, crash), several nodes and the version lease
# (multinode), the row locks and the ballot's statements (rowlocks, votes), the node's copies
# of the bodies and tallies (fragment_cache, fragments, list_index, cache) and the mixed load.
# The other files run the same C code on both drivers with other SQL texts, which ASan does
# not look into: the SQLite pass covers them. (The whole PostgreSQL pass takes 11 minutes
# without ASan here; these 11 files take 4.6 minutes with it.) WHISTLE_TEST_PG_ALL=1 runs it
# all.
if [ "${SANITIZE:-}" = 1 ] && [ "${WHISTLE_TEST_PG_ALL:-}" != 1 ]; then
    pg_blackbox_tests=""
    for f in cache concurrent_load crash fragment_cache fragments http_rules list_index multinode \
        rowlocks store_heal votes; do
        pg_blackbox_tests="$pg_blackbox_tests tests/http/test_$f.py"
    done
fi
if [ "$tsan" = 1 ]; then
    blackbox_tests=tests/http/test_concurrent_load.py
    pg_blackbox_tests=$blackbox_tests
    export TSAN_OPTIONS="${TSAN_OPTIONS:-exitcode=66 second_deadlock_stack=1}"
else
    step "style (banned functions, clang-format)" make -s style
    step "openapi lint (spectral, redocly)" bash tests/lint-openapi.sh
fi

for t in ${UNIT_BINS:-}; do
    [ -x "$t" ] || { echo "missing unit test binary $t"; failed=$((failed + 1)); continue; }
    echo "== unit $(basename "$t")"
    t0=$SECONDS
    WHISTLE_TEST_PG="$pg" "$t" > "$out/unit.log" 2>&1
    rc=$?
    cat "$out/unit.log"
    took "$t0"
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out/unit.log" | tail -1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out/unit.log" | tail -1)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
    if [ "$rc" -ne 0 ] && [ -z "$f" ]; then failed=$((failed + 1)); fi
done

# One pytest run per store driver: SQLite always; PostgreSQL when a throwaway cluster can be
# started here (tests/pgcluster.sh; .ci/run installs PostgreSQL so that it always can).
# WHISTLE_TEST_PG=skip turns the PostgreSQL run off; WHISTLE_TEST_PG=URI uses that cluster.
blackbox() { # driver label, test paths, extra environment...
    local label=$1 tests=$2 t0=$SECONDS
    shift 2
    echo "== black-box tests on $label (pytest, real binary over HTTP)"
    env "$@" WHISTLE_BIN="$BIN" /usr/bin/python3 -m pytest -q -p no:cacheprovider \
        --junitxml="$out/junit-$label.xml" $tests
    local rc=$? p f
    if [ -f "$out/junit-$label.xml" ]; then
        read -r p f < <(/usr/bin/python3 - "$out/junit-$label.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else list(root)
t = sum(int(s.get("tests", 0)) for s in suites)
f = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
sk = sum(int(s.get("skipped", 0)) for s in suites)
print(t - f - sk, f)
PY
)
        echo "black-box on $label: $p passed, $f failed ($(($SECONDS - t0)) s)"
        passed=$((passed + p))
        failed=$((failed + f))
    fi
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ] && [ "${f:-0}" -eq 0 ]; then failed=$((failed + 1)); fi
    if [ "$rc" -eq 5 ]; then echo "pytest collected no tests"; failed=$((failed + 1)); fi
}

blackbox sqlite "$blackbox_tests" WHISTLE_TEST_PG=
if [ -n "$pg" ]; then
    blackbox postgresql "$pg_blackbox_tests" WHISTLE_TEST_PG="$pg"
fi

if [ "$tsan" != 1 ]; then
    echo "== browser tests (headless Chromium + playwright-core)"
    t0=$SECONDS
    WHISTLE_BIN=$BIN bash tests/browser/run.sh > "$out/browser.log" 2>&1
    rc=$?
    cat "$out/browser.log"
    took "$t0"
    p=$(sed -n 's/^# pass \([0-9]*\).*/\1/p' "$out/browser.log" | tail -1)
    f=$(sed -n 's/^# fail \([0-9]*\).*/\1/p' "$out/browser.log" | tail -1)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
    if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then failed=$((failed + 1)); fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

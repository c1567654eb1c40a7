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

step() { # name, command...
    local name=$1
    shift
    echo "== $name"
    if "$@"; then
        passed=$((passed + 1))
    else
        echo "FAILED: $name"
        failed=$((failed + 1))
    fi
}

step "style (banned functions, clang-format)" make -s style
step "openapi lint (spectral)" bash tests/lint-openapi.sh

for t in ${UNIT_BINS:-}; do
    [ -x "$t" ] || { echo "missing unit test binary $t"; failed=$((failed + 1)); continue; }
    echo "== unit $(basename "$t")"
    "$t" > "$out/unit.log" 2>&1
    rc=$?
    cat "$out/unit.log"
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out/unit.log" | tail -1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out/unit.log" | tail -1)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
    if [ "$rc" -ne 0 ] && [ -z "$f" ]; then failed=$((failed + 1)); fi
done

echo "== black-box tests (pytest, real binary over HTTP)"
WHISTLE_BIN=$BIN /usr/bin/python3 -m pytest -q -p no:cacheprovider --junitxml="$out/junit.xml" tests/http
rc=$?
if [ -f "$out/junit.xml" ]; then
    read -r p f < <(/usr/bin/python3 - "$out/junit.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else list(root)
t = sum(int(s.get("tests", 0)) for s in suites)
f = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
sk = sum(int(s.get("skipped", 0)) for s in suites)
print(t - f - sk, f)
PY
)
    passed=$((passed + p))
    failed=$((failed + f))
fi
if [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ] && [ "${f:-0}" -eq 0 ]; then failed=$((failed + 1)); fi
if [ "$rc" -eq 5 ]; then echo "pytest collected no tests"; failed=$((failed + 1)); fi

echo "== browser tests (headless Chromium + playwright-core)"
WHISTLE_BIN=$BIN bash tests/browser/run.sh > "$out/browser.log" 2>&1
rc=$?
cat "$out/browser.log"
p=$(sed -n 's/^# pass \([0-9]*\).*/\1/p' "$out/browser.log" | tail -1)
f=$(sed -n 's/^# fail \([0-9]*\).*/\1/p' "$out/browser.log" | tail -1)
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-0}))
if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then failed=$((failed + 1)); fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

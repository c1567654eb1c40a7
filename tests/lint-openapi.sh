#!/usr/bin/env bash
# Lints the served OpenAPI description (src/api/openapi.json):
#   1. valid JSON, no duplicate keys, every component schema a valid JSON Schema 2020-12;
#   2. Spectral (spectral:oas, see .spectral.yaml) with no warning and no error;
#   3. Redocly CLI (recommended rules, see redocly.yaml) with no warning and no error.
# Exits non-zero on any problem.
set -euo pipefail

cd "$(dirname "$0")/.."
doc=src/api/openapi.json

/usr/bin/python3 -m json.tool "$doc" >/dev/null

/usr/bin/python3 - "$doc" <<'PY'
import json, sys
import jsonschema

def no_dup(pairs):
    keys = [k for k, _ in pairs]
    dups = {k for k in keys if keys.count(k) > 1}
    if dups:
        raise SystemExit(f"{sys.argv[1]}: duplicate keys: {sorted(dups)}")
    return dict(pairs)

with open(sys.argv[1], encoding="utf-8") as f:
    doc = json.load(f, object_pairs_hook=no_dup)
for name, schema in doc["components"]["schemas"].items():
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        raise SystemExit(f"{sys.argv[1]}: components.schemas.{name}: {e.message}")
PY

# npm test tooling (package.json, pinned by package-lock.json): Spectral here, Prism for the
# contract crawl (tests/http/test_contract.py), playwright-core for the browser tests
if [ ! -x node_modules/.bin/spectral ] || [ ! -x node_modules/.bin/prism ] ||
    [ ! -x node_modules/.bin/redocly ] || [ ! -x node_modules/.bin/tsc ]; then
    if [ -f package-lock.json ]; then
        npm ci --no-audit --no-fund
    else
        npm install --no-audit --no-fund
    fi
fi

node_modules/.bin/spectral lint --ruleset .spectral.yaml --fail-severity=warn "$doc"
# Redocly counts warnings without failing on them: any warning or error fails here
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
redocly() { node_modules/.bin/redocly lint --config redocly.yaml "$@" "$doc" 2> /dev/null; }
if ! redocly --format=json | /usr/bin/python3 -c '
import json, sys
t = json.load(sys.stdin)["totals"]
sys.exit(1 if t["errors"] + t["warnings"] else 0)'; then
    redocly --format=stylish >&2 || true
    echo "redocly lint: the problems above" >&2
    exit 1
fi
echo "redocly lint (recommended): no warning, no error"

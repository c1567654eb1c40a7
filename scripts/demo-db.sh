#!/bin/sh
# The sample database of `make run` and of the README tour (tests/http/test_readme_tour.py):
# the bundled demo document when the database is empty, then the bundled provider samples.
# usage: scripts/demo-db.sh WHISTLE_BIN DB
set -eu
bin=$1
db=$2
"$bin" import --if-empty data/demo.json --db "$db"
"$bin" games sync --provider nflverse data/providers/nflverse-sample.csv --db "$db"
"$bin" games sync --provider cfbd --season 2026 --db "$db" \
    --file data/providers/cfbd-sample.json --teams-file data/providers/cfbd-teams-sample.json

#!/usr/bin/env bash
# run.sh BUILD_DIR NAME...: runs each libFuzzer harness BUILD_DIR/fuzz_NAME for FUZZ_SECONDS
# (default 60) on its seed corpus tests/fuzz/corpus/NAME (read only) plus a working corpus
# BUILD_DIR/corpus/NAME that keeps what it finds. A crash leaves its input in
# BUILD_DIR/artifacts/. Prints a closing "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=$1
shift
secs=${FUZZ_SECONDS:-60}
passed=0
failed=0
for name in "$@"; do
    bin=$dir/fuzz_$name
    work=$dir/corpus/$name
    mkdir -p "$work" "$dir/artifacts"
    echo "== fuzz $name (${secs}s)"
    if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$dir/artifacts/$name-" \
        "$work" "tests/fuzz/corpus/$name" > "$dir/$name.log" 2>&1; then
        grep -E "^stat::number_of_executed_units|^Done" "$dir/$name.log" | tail -2
        passed=$((passed + 1))
    else
        tail -40 "$dir/$name.log"
        echo "FAILED: fuzz $name (input in $dir/artifacts/)"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

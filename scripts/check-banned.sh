#!/bin/sh
# Banned unbounded string functions (STYLE.md habit 10).
set -eu
hits=$(grep -rnE '\b(sprintf|vsprintf|strcpy|strcat|strncpy|strtok|atoi|atol|gets)\s*\(' src tests/unit \
       --include='*.c' --include='*.h' | grep -vE '\b(snprintf|vsnprintf)\s*\(' || true)
if [ -n "$hits" ]; then
    echo "banned functions (STYLE.md habit 10):" >&2
    echo "$hits" >&2
    exit 1
fi

#!/bin/sh
# embed.sh SYMBOL FILE: write a C source defining SYMBOL (bytes of FILE, NUL-terminated) and
# SYMBOL_len (its length without the NUL) on stdout. Uses only POSIX od/sed.
set -eu
sym=$1
file=$2
len=$(wc -c < "$file" | tr -d ' ')
echo "#include <stddef.h>"
echo "const unsigned char ${sym}[] = {"
od -An -v -tx1 "$file" | sed -e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'
echo "0x00};"
echo "const size_t ${sym}_len = ${len};"

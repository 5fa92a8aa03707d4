#!/bin/sh
# embed_binary FILE SYMBOL: prints a C file defining `const unsigned char
# SYMBOL[]` (8-byte aligned, as cuModuleLoadData wants) and `const size_t
# SYMBOL_size` with FILE's bytes.
set -eu
file=$1
symbol=$2
echo "#include <stddef.h>"
echo "__attribute__((aligned(8))) const unsigned char ${symbol}[] = {"
od -An -v -tx1 "$file" | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'
echo "};"
echo "const size_t ${symbol}_size = sizeof ${symbol};"

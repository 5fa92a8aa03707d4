#!/usr/bin/env bash
# header-sets.sh's NCORE_EXTRA_NCCL_HEADERS, on scratch folders holding
# only an nccl.h (all header-sets.sh reads): a folder with a version not yet
# listed joins the list in version order; a version already listed keeps
# its first folder; empty, missing and header-less entries change nothing.
# Ends with "N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
passed=0 failed=0
check() { # name expected actual
  if [ "$2" = "$3" ]; then echo "ok $1"; passed=$((passed + 1))
  else echo "FAIL $1: expected [$2], got [$3]"; failed=$((failed + 1)); fi
}
with_version() { # folder code
  mkdir -p "$1"
  printf '#define NCCL_VERSION_CODE %s\n' "$2" >"$1/nccl.h"
}
base=$("$here/header-sets.sh")
first=$(head -1 <<< "$base")
first_code=$(sed -n 's/^#define NCCL_VERSION_CODE \([0-9]*\).*/\1/p' "$first/nccl.h")
with_version "$scratch/newer" 99999
with_version "$scratch/older" 1
with_version "$scratch/same" "$first_code"
mkdir -p "$scratch/empty"
check "unset: the repository's sets" "$base" "$(NCORE_EXTRA_NCCL_HEADERS= "$here/header-sets.sh")"
check "a newer set comes last" "$base"$'\n'"$scratch/newer" \
  "$(NCORE_EXTRA_NCCL_HEADERS="$scratch/newer" "$here/header-sets.sh")"
check "an older set comes first" "$scratch/older"$'\n'"$base" \
  "$(NCORE_EXTRA_NCCL_HEADERS="$scratch/older" "$here/header-sets.sh")"
check "a listed version keeps its first folder" "$base" \
  "$(NCORE_EXTRA_NCCL_HEADERS="$scratch/same" "$here/header-sets.sh")"
check "empty, missing and header-less entries are skipped" "$base"$'\n'"$scratch/newer" \
  "$(NCORE_EXTRA_NCCL_HEADERS=":$scratch/missing:$scratch/empty::$scratch/newer:" "$here/header-sets.sh")"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]

#!/usr/bin/env bash
# Prints the NCCL public header sets ncore is checked against, one include
# folder a line, oldest first, one per NCCL version: the CUDA toolkit's
# (2.28.9), third_party/nccl-headers/<version>/include, and
# ../shared/reference/nccl/<version>/include for a version not vendored
# (where the headers of a newer release arrive first). check.sh and
# tests/fake_nccl/build.sh take their matrix from here, so a header set
# added in either place joins both.
#
# NCORE_EXTRA_NCCL_HEADERS: more include folders, colon-separated, each
# holding an nccl.h (version filled in, as derive.sh does) and
# nccl_device.h / nccl_device/ of one release: header sets a machine has
# that the repository does not carry (e.g. NCCL 2.31.2 / 2.32.3, whose
# headers may not be committed here). They join the matrix like the others;
# a version already listed keeps its first folder. CI sets none.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
IFS=: read -r -a extra <<< "${NCORE_EXTRA_NCCL_HEADERS:-}"
version_of() {
  sed -n 's/^#define NCCL_VERSION_CODE \([0-9]*\).*/\1/p' "$1/nccl.h"
}
declare -A seen
for inc in /usr/local/cuda/include "$root"/third_party/nccl-headers/*/include \
    "$root"/../shared/reference/nccl/*/include ${extra[@]+"${extra[@]}"}; do
  [ -n "$inc" ] && [ -f "$inc/nccl.h" ] || continue
  code=$(version_of "$inc")
  [ -n "$code" ] && [ -z "${seen[$code]:-}" ] || continue
  seen[$code]=1
  echo "$code $(cd "$inc" && pwd)"
done | sort -n | cut -d' ' -f2-

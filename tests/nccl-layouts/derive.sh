#!/usr/bin/env bash
# Prints, for each NCCL release tag given, the layout facts of dump.cu, from
# the headers of that tag in a git repository of NVIDIA/nccl. The numbers in
# core/nccl/nccl_layouts.h were taken from this output:
#   tests/nccl-layouts/derive.sh /path/to/nccl.git v2.28.9-1 v2.29.2-1 ...
# Needs nvcc (/usr/local/cuda/bin).
set -euo pipefail
repo=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
for tag in "$@"; do
  dir=$(mktemp -d)
  git --git-dir="$repo" archive "$tag" src/nccl.h.in src/include/nccl_device \
      src/include/nccl_device.h 2>/dev/null | tar x -C "$dir" ||
    git --git-dir="$repo" archive "$tag" src/nccl.h.in src/include/nccl_device | tar x -C "$dir"
  v=${tag#v}; v=${v%-*}; IFS=. read -r major minor patch <<<"$v"
  code=$((major * 10000 + minor * 100 + patch))
  mkdir -p "$dir/inc"
  sed -e "s/\${nccl:Major}/$major/; s/\${nccl:Minor}/$minor/; s/\${nccl:Patch}/$patch/" \
      -e "s/\${nccl:Suffix}//; s/\${nccl:Version}/$code/" \
      "$dir/src/nccl.h.in" >"$dir/inc/nccl.h"
  cp -r "$dir/src/include/nccl_device" "$dir/inc/"
  [ -f "$dir/src/include/nccl_device.h" ] && cp "$dir/src/include/nccl_device.h" "$dir/inc/"
  /usr/local/cuda/bin/nvcc -std=c++17 -DNCCL_GIN_GDAKI_ENABLE=0 -DNCCL_GIN_PROXY_ENABLE=1 -DNCCL_GIN_GPI_ENABLE=0 -I"$dir/inc" -I/usr/local/cuda/include \
      "$here/dump.cu" -o "$dir/dump" 2>"$dir/err" || { echo "$tag: build failed"; head -5 "$dir/err"; }
  [ -x "$dir/dump" ] && "$dir/dump"
  rm -rf "$dir"
done

#!/usr/bin/env bash
# collect-build.sh OUTDIR [BAZEL FLAGS]: copies what `make lib` built from
# Bazel's output tree to OUTDIR/{lib,bin,tests}, the layout tests, bindings
# and the conformance suite use.
set -euo pipefail
out=$1
shift
bin=$(bazel info "$@" bazel-bin 2>/dev/null)
mkdir -p "$out/lib" "$out/bin" "$out/tests"
install -m 755 "$bin/libncore.so" "$out/lib/libncore.so"
ln -sf libncore.so "$out/lib/libncore.so.1"
install -m 755 "$bin/tools/ncore-run" "$out/bin/ncore-run"
install -m 755 "$bin/conformance/runners/c/ncore-conformance-c" "$out/bin/"
install -m 755 "$bin/bench/host/p2p_bench" "$out/bin/"
install -m 755 "$bin/examples/demo/demo" "$out/bin/"
for t in "$bin"/tests/test_* "$bin"/tests/probe_*; do
  [ -f "$t" ] && [ -x "$t" ] && install -m 755 "$t" "$out/tests/"
done
# Programs linked against //:libncore.so find it through their runfiles rpath;
# the copies here find it beside them instead.
exit 0

#!/usr/bin/env bash
# tools/build-variant.sh VARIANT OUTDIR [PART]: builds with Bazel (VARIANT:
# normal, asan or ubsan, the .bazelrc configs) and copies out of Bazel's tree:
#   OUTDIR/lib/libncore.so.MAJOR.MINOR.PATCH (version.h) with the soname chain
#   libncore.so -> libncore.so.1 -> libncore.so.MAJOR.MINOR.PATCH, and for the
#   normal variant build/bin/ncore-run and build/bin/ncore-demo     (PART lib:
#   `make lib`);
#   with PART all (the default; `make test-programs`, the sanitizer builds)
#   also OUTDIR/tests/<program> (every C test program) and, for the normal
#   variant, build/bin/ncore-conformance-c and build/bin/p2p_bench.
set -euo pipefail
variant=$1
out=$2
part=${3:-all}
cd "$(dirname "$0")/.."
case "$part" in
  lib|all) ;;
  *) echo "build-variant: unknown part $part (lib, all)" >&2; exit 2 ;;
esac

flags=()
case "$variant" in
  normal) ;;
  asan|ubsan) flags=(--config="$variant") ;;
  *) echo "build-variant: unknown variant $variant (normal, asan, ubsan)" >&2; exit 2 ;;
esac

targets=(//:libncore.so)
# The launcher and the demo are built once, normally.
[ "$variant" = normal ] && targets+=(//core/launcher:ncore_run //examples/demo:ncore_demo)
# Programs of other folders, installed in build/bin (conformance/run.py and
# bench/run-host.sh look there): "bazel-bin path" of each, when its BUILD exists.
extras=()
if [ "$variant" = normal ] && [ "$part" = all ]; then
  [ -f conformance/runners/c/BUILD ] && extras+=(conformance/runners/c/ncore-conformance-c)
  [ -f bench/host/BUILD ] && extras+=(bench/host/p2p_bench)
  for extra in "${extras[@]}"; do targets+=("//${extra%/*}:${extra##*/}"); done
fi
# The C tests (tests/BUILD belongs to the tests' author); every cc_binary there.
test_programs=()
if [ "$part" = all ] && [ -f tests/BUILD ]; then
  mapfile -t test_programs < <(bazel query --noshow_progress 'kind("cc_binary rule", //tests:*)' 2>/dev/null | sed 's|^//tests:||')
  targets+=("${test_programs[@]/#///tests:}")
fi

echo "build-variant: bazel build ${flags[*]} ${targets[*]}"
bazel build "${flags[@]}" "${targets[@]}"
bin=$(bazel info "${flags[@]}" bazel-bin 2>/dev/null)

mkdir -p "$out/lib"
# The soname chain as a distribution installs it (tools/install.sh copies it):
# the file carries the full version, the soname link the major (what programs
# load), the unversioned link what -lncore finds at link time.
real=$(tools/ncore-version.sh file)
rm -f "$out/lib/libncore.so" "$out/lib/libncore.so.1"
# install, not cp: Bazel's outputs are read-only, and a copy must replace them.
install -m 755 "$bin/libncore.so" "$out/lib/$real"
ln -sfn "$real" "$out/lib/libncore.so.1"
ln -sfn libncore.so.1 "$out/lib/libncore.so"
# pkg-config for the repository itself (the Go binding builds through it).
mkdir -p "$out/lib/pkgconfig"
tools/install/ncore-pc.sh "$PWD" "$PWD/$out/lib" "$PWD/abi/include" > "$out/lib/pkgconfig/ncore.pc"
if [ "$variant" = normal ]; then
  mkdir -p build/bin
  install -m 755 "$bin/core/launcher/ncore_run" build/bin/ncore-run
  install -m 755 "$bin/examples/demo/ncore_demo" build/bin/ncore-demo
  # Other folders' programs that scripts expect in build/bin, when present.
  for extra in "${extras[@]}"; do
    install -m 755 "$bin/$extra" "build/bin/${extra##*/}"
  done
fi
if [ "${#test_programs[@]}" -gt 0 ]; then
  mkdir -p "$out/tests"
  for p in "${test_programs[@]}"; do install -m 755 "$bin/tests/$p" "$out/tests/$p"; done
fi
echo "build-variant: $variant ($part) -> $out"

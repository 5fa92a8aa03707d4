#!/usr/bin/env bash
# Rust binding checks, run by `make test` as `bash bindings/rust/test.sh`:
# everything builds (the crates, tests, the example, the conformance runner
# that conformance/run.py uses), the docs build, and the tests pass. (That
# the committed raw bindings match the header is `make check-generated`'s.) The output ends with cargo test's
# summary. Also copies the binaries a GPU machine runs into build/bin
# (rust-nccl-tests, rust-service; see tools/gpu-run.sh). Needs
# build/lib/libncore.so (make lib) and build/bin/ncore-run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="$HOME/.cargo/bin:$PATH"

if [ ! -e "${NCORE_LIB_DIR:-$root/build/lib}/libncore.so" ]; then
  echo "rust: libncore.so not found in ${NCORE_LIB_DIR:-$root/build/lib}; run make lib" >&2
  exit 1
fi

(cd "$here" && cargo build --offline --workspace --all-targets --quiet)
# What a GPU machine runs (tools/gpu-run.sh), carried there in build/bin with
# build/lib: the NCCL tests (tests/nccl.rs) and the service example.
built() { # cargo arguments... -> the path of the executable they build
  (cd "$here" && cargo "$@" --offline --quiet --message-format=json) |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1
}
mkdir -p "$root/build/bin"
cp "$(built test -p ncore --test nccl --no-run)" "$root/build/bin/rust-nccl-tests"
cp "$(built build -p ncore --example service)" "$root/build/bin/rust-service"
echo "rust: build/bin/rust-nccl-tests and build/bin/rust-service built"
(cd "$here" && RUSTDOCFLAGS="-D warnings" cargo doc --offline --no-deps --workspace --quiet)
echo "rust: docs built in bindings/rust/target/doc"
(cd "$root/conformance/runners/rust" && cargo build --offline --release --quiet)
echo "rust: conformance runner built (conformance/runners/rust/target/release/ncore-conformance-rust)"
# Two test threads: each multi-rank test starts 2 or 4 processes, and the
# CI machine has 2 cores. The launcher kills a hung test after 60 s.
cd "$here"
timeout 300 cargo test --offline --workspace -- --test-threads=2

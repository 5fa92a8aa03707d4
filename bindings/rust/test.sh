#!/usr/bin/env bash
# Rust binding checks, run by `make test` as `bash bindings/rust/test.sh`:
# the committed raw bindings match the header, everything builds (the crates,
# tests, the example, the conformance runner that conformance/run.py uses),
# the docs build, and the tests pass. The output ends with cargo test's
# summary. Needs build/lib/libncore.so (make lib) and build/bin/ncore-run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PATH="$HOME/.cargo/bin:$PATH"

if [ ! -e "${NCORE_LIB_DIR:-$root/build/lib}/libncore.so" ]; then
  echo "rust: libncore.so not found in ${NCORE_LIB_DIR:-$root/build/lib}; run make lib" >&2
  exit 1
fi

bash "$here/check-bindings.sh"
(cd "$here" && cargo build --offline --workspace --all-targets --quiet)
(cd "$here" && RUSTDOCFLAGS="-D warnings" cargo doc --offline --no-deps --workspace --quiet)
echo "rust: docs built in bindings/rust/target/doc"
(cd "$root/conformance/runners/rust" && cargo build --offline --release --quiet)
echo "rust: conformance runner built (conformance/runners/rust/target/release/ncore-conformance-rust)"
# Two test threads: each multi-rank test starts 2 or 4 processes, and the
# CI machine has 2 cores. The launcher kills a hung test after 60 s.
cd "$here"
timeout 300 cargo test --offline --workspace -- --test-threads=2

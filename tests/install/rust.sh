#!/usr/bin/env bash
# tests/install/rust.sh PREFIX WORK: the README's Rust steps as written: a
# user's crate outside the repository whose Cargo.toml is the README's (a
# path dependency on the checkout's bindings/rust/ncore), src/main.rs the
# README's program, built with `cargo build --release` against the installed
# prefix through pkg-config (the README's environment) and run on 4 ranks by
# the installed ncore-run without LD_LIBRARY_PATH: ncore-sys loads libncore
# at run time (bindings/rust/ncore-sys/src/loader.rs) and finds the
# prefix's. Also: both crates package (`cargo package`, which builds each
# from its package), NCORE_LIBRARY, the one-line failure when libncore cannot
# be loaded, and the packaged ncore-sys's build message when ncore cannot
# be found. No network: CARGO_NET_OFFLINE.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
prefix=$1 work=$2
. "$here/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH" CARGO_NET_OFFLINE=true
version=$("$repo/tools/ncore-version.sh")
rust=$work/rust
user=$rust/user
mkdir -p "$user/src"

# The README: Cargo.toml, src/main.rs; cargo build --release; ncore-run -n 4.
readme_block rust-cargo-toml > "$user/Cargo.toml"
cp "$here/rust/main.rs" "$user/src/main.rs"
check readme_rust_crate_builds_and_runs_4_ranks readme_run "$user" "$rust/run.log" rust
check crate_build_found_libncore_by_pkg_config bash -c "
  cat '$user'/target/release/build/ncore-sys-*/output | grep -o 'ncore-sys: libncore.so found by .*' |
  tee /dev/stderr | grep -q 'found by pkg-config ncore in $prefix/lib\$'"
bin=$user/target/release/ring-sum
check crate_binary_links_no_libncore bash -c "
  [ -x '$bin' ] && ! readelf -d '$bin' | grep -q 'libncore\|RUNPATH\|RPATH'"
check crate_binary_loaded_the_prefixs_libncore bash -c "
  grep -q 'libncore: $prefix/lib/libncore.so.1\$' '$rust/run.log' &&
  grep -q 'rank 3 of 4: sum 10\$' '$rust/run.log'"
check crate_binary_loads_ncore_library outside "$work" env NCORE_LIBRARY="$prefix/lib/libncore.so.$version" \
  "$prefix/bin/ncore-run" -n 2 --timeout 120 "$bin"
check crate_binary_without_libncore_says_ncore_library bash -c "
  out=\$(cd '$work' && NCORE_BACKEND=host NCORE_LIBRARY='$work/missing/libncore.so.1' '$bin' 2>&1)
  rc=\$?; echo \"\$out\"; [ \$rc != 0 ] && [ \$(echo \"\$out\" | wc -l) = 1 ] &&
  echo \"\$out\" | grep -q 'ncore: cannot load libncore from NCORE_LIBRARY=$work/missing/libncore.so.1'"

# The crates as a registry would carry them.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
check crates_package outside "$repo/bindings/rust" cargo package --workspace --offline \
  --allow-dirty --quiet --target-dir "$rust/package-target"
unset PKG_CONFIG_PATH
sys_crate=$rust/package-target/package/ncore-sys-$version.crate
check crates_carry_bindings_and_loader bash -c "
  tar tzf '$sys_crate' | grep -q '/src/bindings.rs\$' &&
  tar tzf '$sys_crate' | grep -q '/src/loader.rs\$' && tar tzf '$sys_crate' | grep -q '/build.rs\$' &&
  tar xzOf '$rust/package-target/package/ncore-$version.crate' ncore-$version/Cargo.toml |
  grep -q '^version = \"$version\"'"
# Outside the checkout (no build/lib to fall back on) and without pkg-config's
# ncore, the packaged ncore-sys says what to set.
mkdir -p "$rust/unpacked"
tar xzf "$sys_crate" -C "$rust/unpacked" 2>/dev/null
check crate_build_without_ncore_says_what_to_do outside "$rust/unpacked/ncore-sys-$version" bash -c "
  PKG_CONFIG_PATH=/nowhere cargo build --offline --target-dir '$rust/empty-target' 2>&1 |
  grep -q 'libncore.so not found; tried NCORE_LIB_DIR (not set), pkg-config ncore (not set)'"
echo "$passed passed, $failed failed"

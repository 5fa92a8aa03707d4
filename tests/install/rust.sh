#!/usr/bin/env bash
# tests/install/rust.sh PREFIX WORK: a user's crate outside the repository
# depending on `ncore = "1.1"`, as a registry gives it: both crates made by
# `cargo package` (which also builds them from their packages), unpacked
# into a vendored source that replaces crates.io. The crate is built against
# the installed prefix through pkg-config only (no NCORE_LIB_DIR; the
# repository's build/lib is out of reach of the vendored ncore-sys) and run
# on 2 ranks by the installed ncore-run without LD_LIBRARY_PATH: ncore-sys
# loads libncore at run time (bindings/rust/ncore-sys/src/loader.rs). Also:
# the one-line failure when libncore cannot be loaded, and the build's
# message when ncore cannot be found.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
prefix=$1 work=$2
. "$here/lib.sh"
export PATH="$HOME/.cargo/bin:$PATH"
version=$("$repo/tools/ncore-version.sh")
rust=$work/rust
user=$rust/user
mkdir -p "$rust/vendor" "$user/src" "$user/.cargo"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig

check crates_package outside "$repo/bindings/rust" cargo package --workspace --offline \
  --allow-dirty --quiet --target-dir "$rust/package-target"
# A registry's copy of each crate: the .crate unpacked, with the checksum
# file a vendored directory source wants (the package's hash; no file list).
for crate in ncore-sys ncore; do
  file=$rust/package-target/package/$crate-$version.crate
  [ -f "$file" ] || continue
  tar xzf "$file" -C "$rust/vendor"
  printf '{"files":{},"package":"%s"}\n' "$(sha256sum "$file" | cut -d' ' -f1)" \
    > "$rust/vendor/$crate-$version/.cargo-checksum.json"
done
check crates_carry_bindings_and_loader bash -c "
  tar tzf '$rust/package-target/package/ncore-sys-$version.crate' | grep -q '/src/bindings.rs\$' &&
  tar tzf '$rust/package-target/package/ncore-sys-$version.crate' | grep -q '/src/loader.rs\$' &&
  tar tzf '$rust/package-target/package/ncore-sys-$version.crate' | grep -q '/build.rs\$' &&
  grep -q '^version = \"$version\"' '$rust/vendor/ncore-$version/Cargo.toml'"

cp "$here/rust/main.rs" "$user/src/main.rs"
cat > "$user/Cargo.toml" <<TOML
[package]
name = "ring-sum"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
ncore = "${version%.*}"

[workspace]
TOML
cat > "$user/.cargo/config.toml" <<TOML
[source.crates-io]
replace-with = "vendored"

[source.vendored]
directory = "$rust/vendor"
TOML
# -vv shows what ncore-sys's build script says about where it found libncore.
check crate_builds outside "$user" bash -c "cargo build --offline -vv > build.log 2>&1"
check crate_build_found_libncore_by_pkg_config bash -c "
  grep -o 'ncore-sys: libncore.so found by .*' '$user/build.log' | tee /dev/stderr |
  grep -q 'found by pkg-config ncore in $prefix/lib\$'"
unset PKG_CONFIG_PATH
bin=$user/target/debug/ring-sum
check crate_binary_links_no_libncore_and_names_no_checkout_path bash -c "
  [ -x '$bin' ] && ! readelf -d '$bin' | grep -q 'libncore\|RUNPATH\|RPATH' && ! grep -q '$repo' '$bin'"
check crate_binary_runs_2_ranks_without_ld_library_path bash -c "
  cd '$work' && env -u LD_LIBRARY_PATH -u NCORE_LIBRARY NCORE_BACKEND=host '$prefix/bin/ncore-run' -n 2 --timeout 120 '$bin' > '$rust/run.log' 2>&1
  rc=\$?; cat '$rust/run.log'; [ \$rc = 0 ] &&
  grep -q 'libncore: $prefix/lib/libncore.so.1\$' '$rust/run.log' &&
  grep -q 'rank 1 of 2: sum 3\$' '$rust/run.log'"
check crate_binary_loads_ncore_library outside "$work" env NCORE_LIBRARY="$prefix/lib/libncore.so.$version" \
  "$prefix/bin/ncore-run" -n 2 --timeout 120 "$bin"
check crate_binary_without_libncore_says_ncore_library bash -c "
  out=\$(cd '$work' && NCORE_BACKEND=host NCORE_LIBRARY='$work/missing/libncore.so.1' '$bin' 2>&1)
  rc=\$?; echo \"\$out\"; [ \$rc != 0 ] && [ \$(echo \"\$out\" | wc -l) = 1 ] &&
  echo \"\$out\" | grep -q 'ncore: cannot load libncore from NCORE_LIBRARY=$work/missing/libncore.so.1'"
check crate_build_without_ncore_says_what_to_do outside "$user" bash -c "
  PKG_CONFIG_PATH=/nowhere cargo build --offline --target-dir '$rust/empty-target' 2>&1 |
  grep -q 'libncore.so not found; tried NCORE_LIB_DIR (not set), pkg-config ncore (not set)'"
echo "$passed passed, $failed failed"

#!/usr/bin/env bash
# Installs the Debian packages ncore's build and tests need, when missing.
# As root it runs apt-get; otherwise it names what is missing and fails.
set -euo pipefail
packages=(bazel-bootstrap swig bindgen golang-go python3-dev python3-pytest python3-numpy
          abigail-tools libdlpack-dev clang-14 libclang-rt-14-dev)
[ "${1:-}" = "--bench" ] && packages+=(python3-matplotlib)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing Debian packages: ${missing[*]} (run as root, or apt-get install them)" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null

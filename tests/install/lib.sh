# tests/install/lib.sh — sourced by the install tests: PASS/FAIL records and
# the one installed prefix they share (made once by run.sh).
passed=${passed:-0}
failed=${failed:-0}
check() { # name command...: PASS when the command succeeds (output kept on FAIL)
  local name=$1 out
  shift
  if out=$("$@" 2>&1); then
    echo "PASS $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name:"
    echo "$out" | tail -25 | sed 's/^/    /'
    failed=$((failed + 1))
  fi
}
# Runs command in a folder outside the repository, with no path into it.
outside() { # dir command...
  local dir=$1
  shift
  (cd "$dir" && env -u LD_LIBRARY_PATH -u PYTHONPATH -u NCORE_LIBRARY_DIR \
     -u NCORE_LIB_DIR -u NCORE_LIBRARY NCORE_BACKEND=host "$@")
}
# The README's blocks (tests/install/readme.py), run as a reader runs them.
readme=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/readme.py
# readme_block NAME: block NAME of README.md, with the README's
# /path/to/ncore read as this checkout.
readme_block() {
  echo "$1" >> "$work/readme-blocks-run"
  /usr/bin/python3 "$readme" show "$1" --replace "/path/to/ncore=$repo"
}
# readme_run DIR LOG NAME...: in DIR, outside the repository, runs the
# README's `environment` block (with this test's PREFIX) and then the blocks
# NAME... as one bash script that stops at the first failing command (600 s
# at most); their output goes to LOG too.
readme_run() {
  local dir=$1 log=$2 script name block
  shift 2
  script="set -euo pipefail"$'\n'"PREFIX='$prefix'"$'\n'
  for name in environment "$@"; do
    block=$(readme_block "$name") || return 1
    script+="$block"$'\n'
  done
  outside "$dir" timeout 600 bash -c "$script" 2>&1 | tee "$log"
  return "${PIPESTATUS[0]}"
}

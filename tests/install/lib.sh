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

#!/usr/bin/env bash
# tools/run-test-suites.sh: what `make test` runs after `make deps lib`, in
# order: the check that every generated file is what its generator makes
# (tools/check-generated.py over tools/generated-files.txt) and its
# self-test, the docs against the code (tools/check-docs.py, with its
# self-test: headers listed, cited paths, README blocks run or marked,
# NCORE_* variables documented), the C tests (tests/run.sh), the same under ASan and UBSan builds
# (build/asan, build/ubsan), the ThreadSanitizer tests (tests/race), the
# fuzzers for a bounded time (tests/fuzz), the
# Python, Rust and Go bindings' test.sh, the install tests (tests/install), the
# real launchers (tests/launchers), rank output line by line under each of
# them (tests/stdio_lines), the
# conformance suite, the check that tests assert only documented statuses
# (tools/documented-statuses.py), the library's module dependencies and
# where it comes from (tools/include-cycles.py: no include cycle in core/,
# nothing from outside core/ in the library, clients on installed headers
# only; with its self-test), every entry point of the table of operations
# defined where grep and ctags find it (tests/entry_points_findable.py), the
# top level as the design card fixes it (tests/layout_matches_card.py), the
# NCCL struct layouts against every
# NCCL header set (tests/nccl-layouts/check.sh) and the header-set list's
# extra folders (header-sets-selftest.sh), the NCCL backend against
# test doubles of NCCL 2.28.9, 2.29.7 and 2.30.7 (tests/fake_nccl/run.sh),
# the ABI check, the ABI checker's
# self-test, the header test (C89 / C11 / C++11 / C++17) and the binding
# coverage check (tools/api-coverage against bindings/omissions.txt). Every
# suite's output is shown (and kept in build/test-logs/); its own summary line
# is parsed by tools/test-summary.py. Ends with the time per stage, the
# FAIL lines of each failed suite, and ONE line "N passed, N failed" over
# all suites; exit 1 if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=build/test-logs
mkdir -p "$logs"
total_passed=0 total_failed=0
stage_lines=()
failed_suites=()

# Runs one suite: shows its output, adds its counts, records its time.
run_suite() { # name command...
  local name=$1; shift
  local log="$logs/$name.log" start=$SECONDS rc
  echo
  echo "######## $name: $*"
  "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  local p f
  read -r p f < <(/usr/bin/python3 tools/test-summary.py "$log" "$rc")
  total_passed=$((total_passed + p))
  total_failed=$((total_failed + f))
  stage_lines+=("$(printf '%-24s %5ds  %5d passed, %d failed (exit %d)' "$name" $((SECONDS - start)) "$p" "$f" "$rc")")
  [ "$f" = 0 ] || failed_suites+=("$name")
}

# A CI log may be kept only at its end: name every failure there, beside
# the totals, so a failure on a machine we cannot rerun is still known.
show_failures() {
  local name
  for name in "${failed_suites[@]}"; do
    echo "-- failed in $name (whole output: $logs/$name.log):"
    grep -E '^\s*(FAIL|--- FAIL|FAILED)\b|^test .* \.\.\. FAILED$' "$logs/$name.log" | head -n 20
  done
}

# A suite that is not there yet is reported, not counted.
skip_suite() { # name reason
  echo
  echo "######## $1: skipped ($2)"
  stage_lines+=("$(printf '%-24s        skipped (%s)' "$1" "$2")")
}

# Builds a sanitizer variant, then runs the C tests on it.
sanitized_c_tests() { # variant
  tools/build-variant.sh "$1" "build/$1" || { echo "0 passed, 1 failed"; return 1; }
  tests/run.sh "build/$1"
}

# First, before any suite could rewrite a generated file in the checkout.
run_suite check-generated /usr/bin/python3 tools/check-generated.py
run_suite check-generated-selftest /usr/bin/python3 tools/check-generated-selftest.py
run_suite check-docs /usr/bin/python3 tools/check-docs.py
if [ -x tests/run.sh ]; then
  run_suite c-tests tests/run.sh build
  run_suite c-tests-asan sanitized_c_tests asan
  run_suite c-tests-ubsan sanitized_c_tests ubsan
else
  skip_suite c-tests "tests/run.sh not present"
fi
# What may run at the same time on one communicator, under ThreadSanitizer.
if [ -x tests/race/run.sh ]; then
  run_suite race-tsan tests/race/run.sh
fi
# The fuzzers (libFuzzer, ASan + UBSan): committed inputs replayed, then
# FUZZ_SECONDS (default 40) per target without a finding.
if [ -x tests/fuzz/run.sh ]; then
  run_suite fuzz tests/fuzz/run.sh "${FUZZ_SECONDS:-40}"
fi
for lang in python rust go; do
  if [ -f "bindings/$lang/test.sh" ]; then
    run_suite "$lang-binding" bash "bindings/$lang/test.sh"
  else
    skip_suite "$lang-binding" "not present"
  fi
done
# nccl.core programs run with `import ncore as nccl`: every
# example on the host backend with NumPy, 1 to 3 ranks (the Python
# extension is the one bindings/python/test.sh just built).
if [ -x examples/nccl4py/run.sh ]; then
  run_suite nccl4py-examples examples/nccl4py/run.sh
fi
# ncore as a user gets it, by the README's commands as written (its tagged
# blocks): make demo, make install into a fresh prefix, then the first
# program in C (pkg-config; CMake with cmake --install), Python (the
# ncore-nccl wheel in a venv, and its manylinux copy), Rust (a path
# dependency) and Go (a replace onto the checkout), built and run on 4 ranks
# from outside the repository.
if [ -x tests/install/run.sh ]; then
  run_suite install tests/install/run.sh
fi
# The same C, Python, Rust and Go programs under ncore-run, python -m
# ncore.run, both MPIs' mpirun, Slurm's srun, torchrun, and alone; the two
# launchers held equal; the host backend's one-machine rule.
if [ -x tests/launchers/run.sh ]; then
  run_suite launchers tests/launchers/run.sh
fi
# A rank's output line by line while it runs, under ncore-run, both MPIs,
# torchrun and srun, in C and Python; NCORE_LINE_BUFFERED=0 turns it off.
if [ -x tests/stdio_lines/run.sh ]; then
  run_suite stdio-lines tests/stdio_lines/run.sh
fi
if [ -f conformance/run.sh ]; then
  run_suite conformance bash conformance/run.sh
elif [ -f conformance/run.py ]; then
  run_suite conformance /usr/bin/python3 conformance/run.py
else
  skip_suite conformance "not present"
fi
run_suite documented-statuses /usr/bin/python3 tools/documented-statuses.py --check-tests
run_suite include-cycles /usr/bin/python3 tools/include-cycles.py
run_suite entry-points-findable /usr/bin/python3 tests/entry_points_findable.py
run_suite layout-matches-card /usr/bin/python3 tests/layout_matches_card.py
run_suite nccl-layouts tests/nccl-layouts/check.sh
run_suite nccl-header-sets tests/nccl-layouts/header-sets-selftest.sh
run_suite nccl-versions tests/fake_nccl/run.sh
run_suite abi-check tools/abi-check
run_suite abi-check-selftest tools/abi-check-selftest.sh
run_suite abi-headers tools/header-test.sh
run_suite api-coverage tools/api-coverage

echo
echo "######## summary (seconds per stage)"
printf '%s\n' "${stage_lines[@]}"
show_failures
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" = 0 ]

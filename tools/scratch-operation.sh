#!/usr/bin/env bash
# tools/scratch-operation.sh: checks docs/architecture.md's "Adding an
# operation" on the real tree. In a throwaway copy (the files git tracks
# and the untracked ones it does not ignore, under mktemp -d) it makes the
# list's six hand edits for a throwaway collective, allgather_again (an
# allgather under another name, served by ncclAllGather), then runs:
#
#   make regenerate       the generators write the rest (the entry point,
#                         the Rust, Go and Python methods, the raw
#                         bindings, the conformance cases), and each of
#                         those is checked to be there
#   make test-programs    the library and the C programs build
#   api-coverage, header-test, abi-check
#                         every binding reaches the new function; its
#                         declaration compiles as C89 / C11 / C++; the ABI
#                         only grew
#   C                     test_collectives (its new MR_TEST) on 2, 3, 4 ranks
#   Python                the binding's tests (its new test among them)
#   Rust                  the binding's test.sh, with a test of the
#                         generated allgather_again and allgather_again_in_place
#                         that this script writes (tests/scratch_operation.rs)
#   Go                    the binding's test.sh, with a test of the generated
#                         AllGatherAgain that this script writes
#   conformance           the new operation's cases in C, Python, Rust and Go
#                         (none may fail or be skipped)
#
# then removes the copy, its Bazel output base and its Cargo target (the
# steps' logs stay after a failure). The
# Rust and Go tests it writes are its own checks, not edits the list asks
# for: an addition is tested in those languages by its conformance cases.
#
# Prints one line per step with its time and, on a failure, the step's
# last output lines and "scratch-operation: FAILED at <step>"; exits 1 then,
# 0 when every step passed. Took 69 s on a 2-core development machine
# (a cold Bazel and Cargo build in the copy, 27 s and 8 s of it). Run by .ci/run after make
# test; not by make test (too slow). KEEP_SCRATCH=1 keeps the copy.
# Needs what make test needs (make deps).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export HOME=${HOME:-/tmp/ncore-home}
export PATH="$HOME/.cargo/bin:$PATH"
scratch=$(mktemp -d /tmp/ncore-scratch-operation.XXXXXX)
copy=$scratch/tree
logs=$scratch/logs
mkdir -p "$copy" "$logs"
started=$SECONDS

finish() {
  local status=$?
  if [ -f "$copy/WORKSPACE" ] && [ -d "$copy/bazel-bin" ]; then
    # Stops the copy's Bazel server and removes its output base.
    (cd "$copy" && timeout 120 bazel clean --expunge >/dev/null 2>&1)
  fi
  if [ "${KEEP_SCRATCH:-0}" = 1 ]; then
    echo "scratch-operation: kept $scratch"
  elif [ "$status" = 0 ]; then
    rm -rf "$scratch"
  else
    rm -rf "$copy" # the logs stay for the FAILED line
  fi
}
trap finish EXIT

# step NAME COMMAND...: runs COMMAND in the copy, its output in a log.
step() {
  local name=$1 log
  shift
  log="$logs/$(echo "$name" | tr -c 'a-zA-Z0-9\n' '-').log"
  local start=$SECONDS
  if (cd "$copy" && "$@") >"$log" 2>&1; then
    printf 'scratch-operation: %-44s ok (%ds)\n' "$name" $((SECONDS - start))
    return 0
  fi
  echo "scratch-operation: --- the last lines of $name:"
  tail -n 40 "$log"
  echo "scratch-operation: FAILED at $name ($((SECONDS - start)) s; whole output: $log;" \
    "KEEP_SCRATCH=1 keeps the copy)"
  exit 1
}

copy_tree() {
  # A tracked file deleted in the checkout is left out (--ignore-failed-read).
  (cd "$root" && git ls-files -z --cached --others --exclude-standard |
    tar --null -T - --ignore-failed-read -cf -) | tar -xf - -C "$copy"
}

# The six hand edits of "Adding an operation", each found by an anchor in
# today's file; a missing anchor means the list and the tree disagree.
hand_edits() {
  /usr/bin/python3 - <<'EOF'
import re
import sys


def edit(path, anchor, change):
    text = open(path).read()
    if anchor not in text:
        sys.exit(f"scratch-operation: {path} has no {anchor!r}: "
                 "update tools/scratch-operation.sh and the docs' list")
    open(path, "w").write(change(text))


def after_line(anchor, new):
    def change(text):
        start = text.index(anchor)
        end = text.index("\n", start) + 1
        return text[:end] + new + text[end:]
    return change


# 1. Its row.
edit("core/op_table.h", "  COLL(allgather, ", after_line("  COLL(allgather, ",
     "  COLL(allgather_again, ALLGATHER_AGAIN, ncclAllGather, AllGatherAgain, 0, 0, "
     "ALL_1, ALL_N, sendcount, BLOCK) \\\n"))
# 2. Its declaration, documented.
edit("abi/include/ncore/coll.h", "NCORE_END_DECLS", lambda t: t.replace("NCORE_END_DECLS", """\
/* allgather under another name (a throwaway operation of
 * tools/scratch-operation.sh): every rank's sendbuf (sendcount elements)
 * lands at recvbuf + r * sendcount on every rank. */
NCORE_API ncore_status_t ncore_allgather_again(ncore_comm_t comm,
                                               const void *sendbuf,
                                               void *recvbuf, size_t sendcount,
                                               ncore_dtype_t dtype,
                                               ncore_stream_t stream);

NCORE_END_DECLS""", 1))
# 3. Its name and its _config twin's in the open version node (the last one).
edit("abi/ncore.map", "} NCORE_1.1;", lambda t: t.replace(
    "} NCORE_1.1;",
    "    ncore_allgather_again;\n    ncore_allgather_again_config;\n} NCORE_1.1;"))
# 4. Its C test: allgather's, under the new name.
def c_test(text):
    start = text.index("MR_TEST(allgather_all_dtypes) {")
    end = text.index("\n}\n", start) + 3
    return text[:end] + "\n" + text[start:end].replace("allgather", "allgather_again") + text[end:]
edit("tests/multirank/test_collectives.c", "MR_TEST(allgather_all_dtypes) {", c_test)
# 5. Its Python test.
edit("bindings/python/tests/test_collectives.py", "NRANKS = [2, 4]", lambda t: t + '''

def _allgather_again(comm):
    r, n = comm.rank, comm.nranks
    gathered = np.zeros(2 * n, dtype=np.int32)
    comm.allgather_again(np.array([r, 10 * r], dtype=np.int32), gathered)
    inplace = np.full(n, -1, dtype=np.int64)
    inplace[r] = r + 5
    comm.allgather_again(inplace[r:r + 1], inplace)
    return gathered.tolist(), inplace.tolist()


@pytest.mark.parametrize("n", NRANKS)
def test_allgather_again(n):
    want = ([v for k in range(n) for v in (k, 10 * k)], [k + 5 for k in range(n)])
    assert run_ranks(n, _allgather_again) == [want] * n
''')
# 6. The method in the nccl.core table.
edit("bindings/python/README.md", "| `Communicator.allreduce`, `reduce`, `broadcast`, `allgather`, ",
     lambda t: t.replace("| `Communicator.allreduce`, `reduce`, `broadcast`, `allgather`, ",
                         "| `Communicator.allreduce`, `reduce`, `broadcast`, `allgather`, "
                         "`allgather_again`, ", 1))
EOF
}

# What the generators must have written from the new row.
regenerated() {
  local missing=0 file pattern
  while read -r file pattern; do
    grep -q -- "$pattern" "$file" || { echo "$file: no $pattern"; missing=1; }
  done <<'EOF'
core/coll_gen.c NCORE_API ncore_status_t ncore_allgather_again(
core/coll_gen.c NCORE_API ncore_status_t ncore_allgather_again_config(
abi/include/ncore/coll.h NCORE_API ncore_status_t ncore_allgather_again_config(
bindings/go/coll_gen.go func (c \*Communicator) AllGatherAgainConfig(
bindings/rust/ncore/src/coll_gen.rs pub fn allgather_again_in_place<
bindings/go/coll_gen.go func (c \*Communicator) AllGatherAgain(
bindings/python/ncore/_collectives_gen.py def allgather_again(
bindings/rust/ncore-sys/src/bindings.rs pub fn ncore_allgather_again(
bindings/go/ncgo_gen.h ncgo_allgather_again(
bindings/python/ncore/_ncore.pyi def ncore_allgather_again(
EOF
  ls conformance/cases/allgather_again_*.json || missing=1
  return $missing
}

# The Rust and Go tests of the generated methods (this script's own).
binding_tests() {
  cat >bindings/rust/ncore/tests/scratch_operation.rs <<'EOF'
//! tools/scratch-operation.sh's test of the generated allgather_again.

mod common;

use common::{on_ranks, world};

#[test]
fn allgather_again_and_in_place_on_three_ranks() {
    on_ranks("allgather_again_and_in_place_on_three_ranks", 3, |env| {
        let comm = world();
        let r = env.rank;
        let mut out = vec![0i32; 6];
        comm.allgather_again(&[r, 10 * r], &mut out, 2, None).unwrap();
        assert_eq!(out, vec![0, 0, 1, 10, 2, 20]);
        let mut buf = vec![-1i64; 3];
        buf[r as usize] = r as i64 + 5;
        comm.allgather_again_in_place(&mut buf, 1, None).unwrap();
        assert_eq!(buf, vec![5, 6, 7]);
        comm.finalize().unwrap();
    });
}
EOF
  cat >bindings/go/scratch_operation_test.go <<'EOF'
package ncore

import "testing"

// tools/scratch-operation.sh's test of the generated AllGatherAgain.
func TestScratchAllGatherAgainOnThreeRanks(t *testing.T) {
	runRanks(t, 3, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		out := make([]int32, 6)
		must(t, "AllGatherAgain", c.AllGatherAgain(Host([]int32{int32(rank), int32(10 * rank)}), Host(out), nil))
		for q := 0; q < 3; q++ {
			if out[2*q] != int32(q) || out[2*q+1] != int32(10*q) {
				t.Fatalf("AllGatherAgain = %v", out)
			}
		}
		g := []int64{-1, -1, -1}
		g[rank] = int64(rank + 5)
		must(t, "AllGatherAgain in place", c.AllGatherAgain(Host(g[rank:rank+1]), Host(g), nil))
		if g[0] != 5 || g[1] != 6 || g[2] != 7 {
			t.Fatalf("AllGatherAgain in place = %v", g)
		}
	})
}
EOF
}

# Every case of the new operation passes in all four languages.
conformance() {
  local out
  out=$(/usr/bin/python3 conformance/run.py --cases 'allgather_again*' 2>&1)
  local status=$?
  echo "$out"
  [ "$status" = 0 ] || return 1
  echo "$out" | grep -qE '^[1-9][0-9]* passed, 0 failed, 0 skipped$'
}

echo "scratch-operation: a throwaway allgather_again in $copy"
step "copy the tree" copy_tree
step "the six hand edits" hand_edits
step "make regenerate" make regenerate
step "the generated files have allgather_again" regenerated
step "make test-programs" make test-programs
step "api-coverage" tools/api-coverage
step "header test" tools/header-test.sh
step "abi-check" tools/abi-check
step "C: test_collectives" env ONLY=test_collectives SKIP_NCCL=1 tests/run.sh build
step "Python: the binding's tests" bash bindings/python/test.sh
step "the Rust and Go tests of the new methods" binding_tests
step "Rust: the binding's tests" bash bindings/rust/test.sh
step "Go: the binding's tests" bash bindings/go/test.sh
step "conformance: allgather_again in 4 languages" conformance
echo "scratch-operation: passed: allgather_again added with six hand edits," \
  "built and tested in C, Python, Rust and Go ($((SECONDS - started)) s)"

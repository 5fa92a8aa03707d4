# tests/gpu/group.sh, sourced by tests/gpu/run.sh and graphs.sh: runs one
# group of a tests/gpu program's cases under ncore-run, bounded in time (a
# hung group fails alone), and adds rank 0's "N passed, N failed" to the
# caller's counters passed / failed; a group that ends without that line,
# or with a non-zero status and no failed case, counts one failure.
#   group PROGRAM RANKS LIMIT_S [VAR=value ...] [ARG ...]
passed=${passed:-0} failed=${failed:-0}
# tally NAME LOG [STATUS]: adds the last "N passed, N failed" line of LOG
# (rank 0's, where ncore-run prefixes the ranks' lines) to passed / failed.
# No such line (a program missing, or killed at its limit before its
# verdict), or a non-zero STATUS with no failed case, counts one failure.
tally() {
  local name=$1 log=$2 status=${3:-0} line p f
  line=$(grep -E '^(\[0\] )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -1 | sed -E 's/^\[0\] //')
  if [ -z "$line" ]; then
    echo "FAIL $name: no verdict line (exit status $status)"
    failed=$((failed + 1))
    return 1
  fi
  p=$(echo "$line" | awk '{print $1}')
  f=$(echo "$line" | awk '{print $3}')
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$status" != 0 ] && [ "$f" = 0 ]; then
    echo "FAIL $name: exit status $status"
    failed=$((failed + 1))
    return 1
  fi
}
group() {
  local program=$1 n=$2 limit=$3; shift 3
  local vars=()
  while [[ "${1:-}" == *=* ]]; do vars+=("$1"); shift; done
  echo "=== ${vars[*]} $(basename "$program") -n $n $*"
  local log
  log=$(mktemp)
  timeout -k 5 "$limit" env "${vars[@]}" build/bin/ncore-run -n "$n" --timeout "$limit" -- \
    "$program" "$@" 2>&1 | tee "$log"
  tally "group $(basename "$program") -n $n $*" "$log" "${PIPESTATUS[0]}"
  rm -f "$log"
}

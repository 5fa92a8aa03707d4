# tests/gpu/group.sh, sourced by tests/gpu/run.sh and graphs.sh: runs one
# group of a tests/gpu program's cases under ncore-run, bounded in time (a
# hung group fails alone), and adds rank 0's "N passed, N failed" to the
# caller's counters passed / failed; a group that ends without that line,
# or with a non-zero status and no failed case, counts one failure.
#   group PROGRAM RANKS LIMIT_S [VAR=value ...] [ARG ...]
passed=${passed:-0} failed=${failed:-0}
group() {
  local program=$1 n=$2 limit=$3; shift 3
  local vars=()
  while [[ "${1:-}" == *=* ]]; do vars+=("$1"); shift; done
  echo "=== ${vars[*]} $(basename "$program") -n $n $*"
  local log
  log=$(mktemp)
  timeout -k 5 "$limit" env "${vars[@]}" build/bin/ncore-run -n "$n" --timeout "$limit" -- \
    "$program" "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local line
  line=$(grep -E '^(\[0\] )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -1 | sed -E 's/^\[0\] //')
  if [ -n "$line" ]; then
    passed=$((passed + $(echo "$line" | awk '{print $1}')))
    failed=$((failed + $(echo "$line" | awk '{print $3}')))
  fi
  if [ -z "$line" ] || [ "$rc" != 0 ] && [ "$(echo "$line" | awk '{print $3}')" = 0 ]; then
    echo "FAIL group $(basename "$program") -n $n $*: exit status $rc"
    failed=$((failed + 1))
  fi
  rm -f "$log"
}

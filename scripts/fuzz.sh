#!/usr/bin/env bash
# Runs the libFuzzer targets of test/Fuzz (docs/testing.md):
#
#   scripts/fuzz.sh <ir|npy|checkpoint|call|all> <seconds> [--junit FILE]
#
# builds the sanitizer tree (build-asan/), replays each target's regression
# inputs (test/Fuzz/regressions/<target>/), then fuzzes the target for
# <seconds> from its corpus (build-asan/fuzz/corpus/<target>/, kept between
# runs and seeded from the test inputs) and prints its executions and
# coverage (libFuzzer's cov: and ft:, and -print_final_stats). With `all`,
# two targets run at a time. A crash, a sanitizer report, a broken
# invariant, a leak or an input slower than 30 s is a finding: the input
# is saved under build-asan/fuzz/findings/<target>/ and the run fails.
# --junit writes one test case per target for scripts/summarize.py.
set -euo pipefail

TARGETS=(ir npy checkpoint call)
usage() {
  local IFS='|'
  echo "usage: scripts/fuzz.sh <${TARGETS[*]}|all> <seconds> [--junit FILE]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
choice=$1 seconds=$2 junit=
shift 2
if [ $# -gt 0 ]; then
  [ "$1" = --junit ] && [ $# -eq 2 ] || usage
  junit=$2
fi
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || usage
if [ "$choice" = all ]; then
  targets=("${TARGETS[@]}")
elif [[ " ${TARGETS[*]} " == *" $choice "* ]]; then
  targets=("$choice")
else
  usage
fi

source "$(dirname "${BASH_SOURCE[0]}")/sanitized-build.sh"
build_sanitized mixprec-fuzzers >/dev/null

work=$MIXPREC_ASAN_BUILD/fuzz
mkdir -p "$work/logs"
# The IR target's seeds are every test and example input, split at
# `// -----`; the others' come from the fuzz model and the .npy writer.
mapfile -t inputs < <(cd "$MIXPREC_ROOT" &&
  find test examples -name '*.mlir' | sort)
rm -rf "$work/seeds"
(cd "$MIXPREC_ROOT" &&
  "$MIXPREC_ASAN_BUILD/bin/mixprec-fuzz-seeds" "$work/seeds" "${inputs[@]}")

# fuzz_target TARGET: replays the regressions, then fuzzes; the log is
# $work/logs/TARGET.log and the exit status says whether it found anything.
fuzz_target() {
  local target=$1 fuzzer=$MIXPREC_ASAN_BUILD/bin/mixprec-fuzz-$1
  local regressions=$MIXPREC_ROOT/test/Fuzz/regressions/$1
  local log=$work/logs/$1.log
  mkdir -p "$work/corpus/$target" "$work/findings/$target"
  : >"$log"
  shopt -s nullglob
  local replay=("$regressions"/*)
  shopt -u nullglob
  if [ ${#replay[@]} -gt 0 ] &&
    ! sanitizer_env "$fuzzer" "${replay[@]}" >>"$log" 2>&1; then
    echo "fuzzer: a regression input of test/Fuzz/regressions/$target fails" >>"$log"
    return 1
  fi
  local corpora=("$work/corpus/$target" "$work/seeds/$target")
  [ -d "$regressions" ] && corpora+=("$regressions")
  sanitizer_env nice -n 19 "$fuzzer" -max_total_time="$seconds" -timeout=30 \
    -print_final_stats=1 -artifact_prefix="$work/findings/$target/" \
    "${corpora[@]}" >>"$log" 2>&1
}

# One line per target from its log.
report() {
  local target=$1 result=$2 log=$work/logs/$1.log
  local runs speed coverage
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  coverage=$(grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*/[0-9a-zA-Z]*' "$log" |
    tail -1 || true)
  echo "$target: ${runs:-0} executions in ${seconds} s (${speed:-0}/s), ${coverage:-no coverage}: $result"
}

declare -A results
run_pair() {
  local pids=() target
  for target in "$@"; do
    fuzz_target "$target" &
    pids+=($!)
  done
  local i=0
  for target in "$@"; do
    if wait "${pids[$i]}"; then results[$target]=ok; else results[$target]=FAILED; fi
    i=$((i + 1))
  done
}
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  run_pair "${targets[@]:i:2}"
done

status=0
for target in "${targets[@]}"; do
  if [ "${results[$target]}" = ok ]; then
    report "$target" "no findings"
  else
    status=1
    report "$target" "FOUND A PROBLEM (log: $work/logs/$target.log, inputs: $work/findings/$target/)"
    grep -m 5 -E "^(==[0-9]+==ERROR|SUMMARY|fuzzer:|ir fuzzer:|npy fuzzer:)|runtime error" \
      "$work/logs/$target.log" | sed 's/^/    /'
  fi
done

if [ -n "$junit" ]; then
  {
    echo '<?xml version="1.0" encoding="utf-8"?>'
    echo "<testsuites><testsuite name=\"fuzz\" tests=\"${#targets[@]}\">"
    for target in "${targets[@]}"; do
      echo "<testcase classname=\"fuzz\" name=\"$target\" time=\"$seconds\">"
      [ "${results[$target]}" = ok ] ||
        echo "<failure message=\"see $work/logs/$target.log\"/>"
      echo "</testcase>"
    done
    echo "</testsuite></testsuites>"
  } >"$junit"
fi
exit $status

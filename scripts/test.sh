#!/usr/bin/env bash
# The whole test suite: installs, builds, checks the format (clang-format),
# runs the lit suite with the unit tests and the integration tests, then the
# sanitizer run (the sanitizer build's suites and the fuzz targets), and ends
# with one line "N passed, M failed" over all of them. MIXPREC_WERROR=ON
# (.ci/run sets it) builds both trees with -Werror.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

results=$MIXPREC_BUILD/test-results
rm -rf "$results" && mkdir -p "$results"

status=0

# require_junit REPORT NAME: a stand-in with one failure for a JUnit report
# that was not written.
require_junit() {
  if [ ! -s "$1" ]; then
    echo "$2: no test report (crashed or missing)" >&2
    printf '<testsuite><testcase name="%s"><failure/></testcase></testsuite>\n' \
      "$2" >"$1"
  fi
}

# junit_check REPORT NAME COMMAND...: runs COMMAND as one test case named
# NAME, which fails when COMMAND does.
junit_check() {
  local report=$1 name=$2
  shift 2
  if "$@"; then
    printf '<testsuite><testcase name="%s"/></testsuite>\n' "$name" >"$report"
  else
    printf '<testsuite><testcase name="%s"><failure/></testcase></testsuite>\n' \
      "$name" >"$report"
    status=1
  fi
}

echo "== clang-format"
junit_check "$results/format.xml" clang-format \
  bash "$MIXPREC_ROOT/scripts/check-format.sh"

# The sanitizer tree (docs/testing.md) builds in the background while the
# normal suites run, which leave a core idle most of the time.
source "$MIXPREC_ROOT/scripts/sanitized-build.sh"
sanitized_log=$MIXPREC_BUILD/sanitized-build.log
(renice -n 10 -p $BASHPID >/dev/null && build_sanitized) >"$sanitized_log" 2>&1 &
sanitized_build=$!

# lit runs the gtest executables too (unittests/lit.cfg.py) and reports
# each of their tests; one that crashes fails.
# CPU models run on one thread each here unless a test sets a count: the
# suites run processes side by side on the machine's cores, and no result
# depends on the count (test_cpu_threads.py and CpuContractionTest set
# their own and check exactly that).
export MIXPREC_NUM_THREADS=${MIXPREC_NUM_THREADS:-1}

echo "== lit suite and unit tests"
"$LLVM_PREFIX/bin/lit" -sv -o "$results/lit.json" "$MIXPREC_BUILD/test" \
  "$MIXPREC_BUILD/unittests" || status=1

echo "== integration tests (CPU backend, and CUDA on the GPU simulator, against PyTorch)"
MIXPREC_BUILD=$MIXPREC_BUILD /usr/bin/python3 -m pytest -q -p no:cacheprovider \
  --junitxml="$results/pytest.xml" "$MIXPREC_ROOT/test/Integration" ||
  status=1

require_junit "$results/pytest.xml" pytest

# The same suites against the sanitizer build, the integration tests
# limited to those of the tools and the C ABI, and each fuzz target for a
# bounded time.
echo "== sanitizer build (ASan + UBSan)"
if wait "$sanitized_build"; then
  # These tests check an op order that the host compiler decides: builder
  # calls passed as arguments of one call run right to left under g++ and
  # left to right under clang. They run in the normal suite.
  host_order="Conversion/MixprecToLinalg/(gradients|normalization|reductions|"
  host_order+="training)|Transforms/Autodiff/adjoints|"
  host_order+="Transforms/LossScaling/structure"
  echo "== lit suite and unit tests (ASan + UBSan)"
  sanitizer_env "$LLVM_PREFIX/bin/lit" -sv -o "$results/asan-lit.json" \
    --filter-out "$host_order" "$MIXPREC_ASAN_BUILD/test" \
    "$MIXPREC_ASAN_BUILD/unittests" || status=1

  # Python is not instrumented: it loads the shared ASan runtime first, and
  # the libraries and tools it runs share it. Leak checking is off here
  # only: the interpreter and PyTorch keep their allocations at exit. Two
  # tests do not apply: a sanitized model library needs the ASan runtime,
  # so it has undefined symbols outside libc and does not link into a plain
  # C program.
  echo "== integration tests of the tools and the C ABI (ASan + UBSan)"
  not_applicable="test_example_has_no_foreign_undefined_symbols or"
  not_applicable+=" test_example_header_declares_each_function"
  ASAN_OPTIONS=detect_leaks=0 MIXPREC_BUILD=$MIXPREC_ASAN_BUILD sanitizer_env \
    env LD_PRELOAD="$(asan_runtime)" /usr/bin/python3 -m pytest -q \
    -p no:cacheprovider --junitxml="$results/asan-pytest.xml" \
    -k "not ($not_applicable)" \
    "$MIXPREC_ROOT/test/Integration/test_tools.py" \
    "$MIXPREC_ROOT/test/Integration/test_trainer.py" \
    "$MIXPREC_ROOT/test/Integration/test_train_driver.py" || status=1

  echo "== fuzz targets (45 s each)"
  bash "$MIXPREC_ROOT/scripts/fuzz.sh" all 45 \
    --junit "$results/asan-fuzz.xml" || status=1
else
  tail -40 "$sanitized_log" >&2
  require_junit "$results/asan-build.xml" sanitizer-build
  status=1
fi
require_junit "$results/asan-pytest.xml" asan-pytest
require_junit "$results/asan-fuzz.xml" fuzz

/usr/bin/python3 "$MIXPREC_ROOT/scripts/summarize.py" "$results" || status=1
exit $status

#!/usr/bin/env bash
# The whole test suite: installs, builds, runs the lit suite and the unit
# tests, and ends with one line "N passed, M failed" over all of them.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

results=$MIXPREC_BUILD/test-results
rm -rf "$results" && mkdir -p "$results"

status=0
# Each gtest executable writes <name>.gtest.json; summarize.py counts every
# such file. One that crashes before writing its report is recorded as one
# failure, so a missing report cannot pass silently.
echo "== unit tests"
for unittest in MixprecUnitTests MixprecModelRuntimeTests MixprecCudaRuntimeTests \
    MixprecGpusimTests; do
  report=$results/$unittest.gtest.json
  "$MIXPREC_BUILD/unittests/$unittest" --gtest_output="json:$report" ||
    status=1
  if [ ! -s "$report" ]; then
    echo "$unittest: no test report (crashed or missing)" >&2
    printf '{"name": "%s", "tests": 1, "failures": 1, "errors": 0}\n' \
      "$unittest" >"$report"
  fi
done

echo "== lit suite"
"$LLVM_PREFIX/bin/lit" -sv -o "$results/lit.json" "$MIXPREC_BUILD/test" ||
  status=1

echo "== integration tests (CPU backend, and CUDA on the GPU simulator, against PyTorch)"
MIXPREC_BUILD=$MIXPREC_BUILD /usr/bin/python3 -m pytest -q -p no:cacheprovider \
  --junitxml="$results/pytest.xml" "$MIXPREC_ROOT/test/Integration" ||
  status=1

/usr/bin/python3 "$MIXPREC_ROOT/scripts/summarize.py" "$results" || status=1
exit $status

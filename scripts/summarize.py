"""Sums the results of every suite into one line: N passed, M failed.

The results directory holds lit reports (*lit.json), JUnit XML reports
(pytest's and the fuzz targets', *.xml) and one <name>.gtest.json per gtest
executable: those of the normal build, and those of the sanitizer build
under names of their own (asan-lit.json, <name>.asan.gtest.json, ...). Each
kind must have at least one report."""
import json
import pathlib
import sys
import xml.etree.ElementTree as ElementTree

LIT_PASS = {"PASS", "XFAIL"}
LIT_SKIP = {"UNSUPPORTED", "SKIPPED", "EXCLUDED"}


def lit_counts(report):
    passed = failed = skipped = 0
    for test in report["tests"]:
        if test["code"] in LIT_PASS:
            passed += 1
        elif test["code"] in LIT_SKIP:
            skipped += 1
        else:
            failed += 1
    return passed, failed, skipped


def gtest_counts(report):
    """Counts each test of a gtest JSON report: a disabled (NOTRUN) or
    GTEST_SKIP()ped test is skipped, one with failures failed."""
    if "testsuites" not in report:  # a stand-in for a crashed executable
        return 0, report["failures"] + report.get("errors", 0), 0
    passed = failed = skipped = 0
    for suite in report["testsuites"]:
        for test in suite["testsuite"]:
            if test.get("failures"):
                failed += 1
            elif (test.get("status") == "NOTRUN" or
                  test.get("result") in ("SKIPPED", "SUPPRESSED")):
                skipped += 1
            else:
                passed += 1
    # An error outside any test (in a test environment, say) fails the run.
    outside = report["failures"] + report.get("errors", 0) - failed
    return passed, failed + max(outside, 0), skipped


def pytest_counts(report):
    passed = failed = skipped = 0
    for case in report.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main(results_dir):
    results = pathlib.Path(results_dir)
    passed = failed = skipped = 0
    # (pattern, the report that must be among its files, counter)
    suites = [("*lit.json", "lit.json",
               lambda p: lit_counts(json.loads(p.read_text()))),
              ("*.gtest.json", None,
               lambda p: gtest_counts(json.loads(p.read_text()))),
              ("*.xml", "pytest.xml",
               lambda p: pytest_counts(ElementTree.parse(p).getroot()))]
    for pattern, required, count in suites:
        # Every gtest executable writes its own report; at least one must.
        paths = sorted(results.glob(pattern))
        if not paths or (required and not (results / required).exists()):
            print(f"missing results: {required or pattern}", file=sys.stderr)
            failed += 1
        for path in paths:
            try:
                p, f, s = count(path)
            except (ValueError, KeyError, ElementTree.ParseError) as error:
                print(f"unreadable results: {path.name}: {error}",
                      file=sys.stderr)
                p, f, s = 0, 1, 0
            passed, failed, skipped = passed + p, failed + f, skipped + s
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

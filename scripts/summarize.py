"""Sums the results of every suite into one line: N passed, M failed.

The results directory holds lit reports (*lit.json, which hold the gtest
executables' tests too) and JUnit XML reports (pytest's, the fuzz targets'
and the format check's, *.xml): those of the normal build, and those of the
sanitizer build under names of their own (asan-lit.json, asan-pytest.xml,
...). The normal build's lit.json and pytest.xml must be among them."""
import json
import pathlib
import sys
import xml.etree.ElementTree as ElementTree

LIT_PASS = {"PASS", "XFAIL"}
LIT_SKIP = {"UNSUPPORTED", "SKIPPED", "EXCLUDED"}


# The lit suites that every lit report must hold tests of: the regression
# tests and the gtest executables' tests (unittests/lit.cfg.py), which lit
# would otherwise leave out silently if none was built.
LIT_SUITES = ("MIXPREC", "MIXPREC-Unit")


def lit_counts(report):
    passed = failed = skipped = 0
    suites = {test["name"].split(" :: ")[0] for test in report["tests"]}
    for suite in LIT_SUITES:
        if suite not in suites:
            print(f"no tests of the lit suite {suite}", file=sys.stderr)
            failed += 1
    for test in report["tests"]:
        if test["code"] in LIT_PASS:
            passed += 1
        elif test["code"] in LIT_SKIP:
            skipped += 1
        else:
            failed += 1
    return passed, failed, skipped


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
              ("*.xml", "pytest.xml",
               lambda p: pytest_counts(ElementTree.parse(p).getroot()))]
    for pattern, required, count in suites:
        paths = sorted(results.glob(pattern))
        if not (results / required).exists():
            print(f"missing results: {required}", file=sys.stderr)
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

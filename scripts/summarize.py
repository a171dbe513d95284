"""Sums the results of every suite into one line: N passed, M failed."""
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
    total = report["tests"]
    failed = report["failures"] + report.get("errors", 0)
    skipped = report.get("disabled", 0)
    return total - failed, failed, skipped


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
    passed = failed = skipped = 0
    suites = {"lit.json": lambda p: lit_counts(json.loads(p.read_text())),
              "unittests.json":
                  lambda p: gtest_counts(json.loads(p.read_text())),
              "pytest.xml":
                  lambda p: pytest_counts(ElementTree.parse(p).getroot())}
    for name, count in suites.items():
        path = pathlib.Path(results_dir) / name
        if not path.exists():
            print(f"missing results: {name}", file=sys.stderr)
            failed += 1
            continue
        p, f, s = count(path)
        passed, failed, skipped = passed + p, failed + f, skipped + s
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

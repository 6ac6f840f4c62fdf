#!/usr/bin/env python3
"""Counts test cases from Meson test logs and pytest's JUnit XML reports (files ending in
.xml); the last line printed is "N passed, N failed" (a line before it gives the skipped
count, when there are any).

Each Meson test is an executable holding many cases; the count comes from what each one
reports: doctest's "[doctest] test cases: ..." line, or unittest's "Ran N tests" and its
verdict. A test whose output has neither (or that crashed before its summary) counts as one
case, passed or failed by its exit status. Exits 1 when anything failed.
"""
import json
import re
import sys
import xml.etree.ElementTree as ElementTree

DOCTEST = re.compile(r"\[doctest\] test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed\s*\|\s*(\d+) skipped")
UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in", re.M)
UNITTEST_FAILED = re.compile(r"^FAILED \(([^)]*)\)", re.M)
UNITTEST_SKIPPED = re.compile(r"skipped=(\d+)")


def count(entry):
    """(passed, failed, skipped) for one Meson test."""
    output = (entry.get("stdout") or "") + "\n" + (entry.get("stderr") or "")
    result = entry.get("result", "")
    ok = result in ("OK", "EXPECTEDFAIL")
    doctest = DOCTEST.findall(output)
    if doctest:
        _, passed, failed, skipped = (int(x) for x in doctest[-1])
        return passed, failed + (0 if ok or failed else 1), skipped
    ran = UNITTEST_RAN.findall(output)
    if ran:
        total = int(ran[-1])
        failed = 0
        skipped = sum(int(x) for x in UNITTEST_SKIPPED.findall(output.split("Ran ")[-1]))
        verdict = UNITTEST_FAILED.findall(output)
        if verdict:
            failed = sum(int(n) for n in re.findall(r"(?:failures|errors)=(\d+)", verdict[-1]))
        if not ok and failed == 0:
            failed = 1
        return total - failed - skipped, failed, skipped
    if result == "SKIP":
        return 0, 0, 1
    return (1, 0, 0) if ok else (0, 1, 0)


def count_junit(path):
    """(passed, failed, skipped) from a JUnit XML report (pytest --junitxml)."""
    root = ElementTree.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.iter("testsuite")
    passed = failed = skipped = 0
    for suite in suites:
        total = int(suite.get("tests", 0))
        bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        skip = int(suite.get("skipped", 0))
        passed, failed, skipped = passed + total - bad - skip, failed + bad, skipped + skip
    return passed, failed, skipped


def main(*paths):
    """Counts over every log given (one per CI leg); a log that cannot be read counts as one
    failure."""
    passed = failed = skipped = 0
    entries = []
    for path in paths:
        if path.endswith(".xml"):
            try:
                p, f, s = count_junit(path)
                passed, failed, skipped = passed + p, failed + f, skipped + s
                entries.append({"junit": path})
            except (OSError, ElementTree.ParseError) as error:
                print(f"count_tests: cannot read {path}: {error}", file=sys.stderr)
                failed += 1
            continue
        try:
            with open(path) as log:
                entries += [json.loads(line) for line in log if line.strip()]
        except OSError as error:
            print(f"count_tests: cannot read {path}: {error}", file=sys.stderr)
            failed += 1
    for entry in entries:
        if "junit" in entry:
            continue
        p, f, s = count(entry)
        passed, failed, skipped = passed + p, failed + f, skipped + s
    if skipped:  # before the last line, which CI reads as exactly "N passed, N failed"
        print(f"{skipped} skipped (cases that need a GPU, or a peer such as torch, where none is present, and "
              "the cases a leg leaves to another: the sanitized leg's finite-difference checks, the emulated "
              "leg's conformance checks other than cpu_cuda)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not entries else 0


if __name__ == "__main__":
    sys.exit(main(*(sys.argv[1:] or ["build/meson-logs/testlog.json"])))

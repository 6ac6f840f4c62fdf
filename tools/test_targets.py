#!/usr/bin/env python3
"""Prints the ninja targets that the tests of a configured build need, so a CI leg builds only
what it runs: `tools/test_targets.py BUILD_DIR [--suite S]... [--test NAME]...` (tests in any of
the suites, or named; every test when neither is given). Read from Meson's introspection: each
test's executable, the files of its command line that are build outputs, and its `depends:`."""

import argparse
import json
import os
import subprocess
import sys


def introspect(build: str, what: str) -> list:
    out = subprocess.run(["meson", "introspect", build, f"--{what}"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build")
    parser.add_argument("--suite", action="append", default=[])
    parser.add_argument("--test", action="append", default=[])
    args = parser.parse_args()
    build = os.path.realpath(args.build)
    targets = {t["id"]: t for t in introspect(build, "targets")}
    outputs = {os.path.realpath(f) for t in targets.values() for f in t["filename"]}

    def chosen(test) -> bool:
        if not args.suite and not args.test:
            return True
        suites = {s.split(":", 1)[-1] for s in test["suite"]}
        return bool(suites & set(args.suite)) or test["name"] in args.test

    needed = set()
    tests = [t for t in introspect(build, "tests") if chosen(t)]
    if not tests:
        print(f"test_targets: no test in {args.build} matches", file=sys.stderr)
        return 1
    for test in tests:
        for word in test["cmd"]:
            path = os.path.realpath(os.path.join(test.get("workdir") or build, word))
            if path in outputs:
                needed.add(path)
        for target_id in test.get("depends", []):
            if target_id in targets:
                needed.update(os.path.realpath(f) for f in targets[target_id]["filename"])
    for path in sorted(needed):
        print(os.path.relpath(path, build))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs a port program built against tensorgen and checks what it reports (`name value`
lines): bounds on named figures, and agreement, figure by figure, with a peer: the same
program built against LibTorch (--peer EXE), or a numpy reimplementation (--reference SCRIPT,
run with --python). A peer that cannot run here (LibTorch or numpy not installed) is a skip,
exit status 77, with the reason; a disagreement or a broken bound is a failure.

usage: compare.py PROGRAM [--peer EXE | --reference SCRIPT --python PY] [--rtol R] [--atol A]
                  [--max NAME=VALUE]... [--min NAME=VALUE]... [--decreasing PREFIX]
"""
import argparse
import os
import re
import subprocess
import sys

SKIP = 77


def figures(command):
    result = subprocess.run(command, capture_output=True, text=True, timeout=240)
    if result.returncode != 0:
        print(f"FAIL: {' '.join(command)} exited with {result.returncode}\n{result.stdout}{result.stderr}")
        sys.exit(1)
    values = {}
    for number, line in enumerate(result.stdout.splitlines(), 1):
        match = re.fullmatch(r"(\S+) (\S+)", line)
        if not match:
            print(f"FAIL: {command[-1]}: line {number} is not `name value`: {line!r}")
            sys.exit(1)
        values[match.group(1)] = float(match.group(2))
    return values


def bound(text):
    name, _, value = text.partition("=")
    return name, float(value)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("program")
    parser.add_argument("--peer")
    parser.add_argument("--reference")
    parser.add_argument("--python")
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--max", type=bound, action="append", default=[])
    parser.add_argument("--min", type=bound, action="append", default=[])
    parser.add_argument("--decreasing")
    args = parser.parse_args()

    ours = figures([args.program])
    for name, value in sorted(ours.items()):
        print(f"tensorgen {name} {value:.9g}")
    failures = []
    for name, limit in args.max:
        if name not in ours or not ours[name] <= limit:
            failures.append(f"{name} = {ours.get(name)} is not <= {limit}")
    for name, limit in args.min:
        if name not in ours or not ours[name] >= limit:
            failures.append(f"{name} = {ours.get(name)} is not >= {limit}")
    if args.decreasing:
        series = [ours[k] for k in sorted((k for k in ours if k.startswith(args.decreasing)),
                                          key=lambda k: int(re.sub(r"\D", "", k)))]
        if len(series) < 2 or any(b >= a for a, b in zip(series, series[1:])):
            failures.append(f"{args.decreasing}* does not decrease: {series}")

    peer_name, peer_command = None, None
    if args.peer:
        peer_name, peer_command = "libtorch", [args.peer]
    elif args.reference:
        if not args.python or not os.path.exists(args.python):
            print(f"SKIP comparison: no Python with numpy at {args.python} (tools/setup-venv.sh makes it)")
        else:
            check = subprocess.run([args.python, "-c", "import numpy"], capture_output=True)
            if check.returncode == 0:
                peer_name, peer_command = "numpy", [args.python, args.reference]
            else:
                print(f"SKIP comparison: numpy is not installed in {args.python}")
    if peer_command:
        theirs = figures(peer_command)
        if sorted(theirs) != sorted(ours):
            failures.append(f"the figures differ in name: tensorgen {sorted(ours)}, {peer_name} {sorted(theirs)}")
        for name in sorted(set(ours) & set(theirs)):
            a, b = ours[name], theirs[name]
            ok = abs(a - b) <= args.atol + args.rtol * abs(b)
            print(f"{'ok  ' if ok else 'DIFF'} {name}: tensorgen {a:.9g}, {peer_name} {b:.9g}")
            if not ok:
                failures.append(f"{name}: tensorgen {a:.9g} vs {peer_name} {b:.9g}")
    for failure in failures:
        print("FAIL: " + failure)
    if failures:
        return 1
    if peer_command is None and (args.peer or args.reference):
        return SKIP
    print("PASS" + (f": agrees with {peer_name}" if peer_command else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""tensorgen against LibTorch 1.13 (Debian's libtorch-dev) and LibTorch 2.x (the PyPI wheel of
tools/setup-libtorch.sh) in one command. Two LibTorch versions cannot share a process, so each
is a bench_compare binary of its own (bench/meson.build builds `bench_compare` against the
primary LibTorch and `bench_compare_debian` against Debian's when both are there); this driver
runs them alternately, round after round, with the same environment (OPENBLAS_CORETYPE, thread
counts: each case sets its own, equal in both frameworks), and prints each figure's median over
the rounds as `name value unit` beside both peers, then the line

  vs LibTorch: worst ratio W (op), median ratio M over N cases; mlp_step ratio R

with ratio = the faster LibTorch's time / tensorgen's time (higher is better). A binary that was
not built (its LibTorch not installed) is reported and left out.

usage: tools/bench-three-way.py [--build DIR] [--rounds N]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

FIGURE = re.compile(r"(\S+) (\S+) (\S+)")
PEER = re.compile(r"# peer: LibTorch (\S+)")


def run(binary, env):
    """One run of a bench_compare binary: (LibTorch version, {name: (value, unit)})."""
    out = subprocess.run([binary], capture_output=True, text=True, env=env, check=True).stdout
    version, figures = None, {}
    for line in out.splitlines():
        peer = PEER.fullmatch(line)
        if peer:
            version = peer.group(1)
            continue
        match = FIGURE.fullmatch(line)
        if match:
            try:
                figures[match.group(1)] = (float(match.group(2)), match.group(3))
            except ValueError:
                pass  # a table row or the summary line, not a figure
    return version, figures


def lower_is_better(unit):
    return unit not in ("GBps", "gflops")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    binaries = [os.path.join(args.build, "bench", name) for name in ("bench_compare", "bench_compare_debian")]
    present = [b for b in binaries if os.access(b, os.X_OK)]
    for b in binaries:
        if b not in present:
            print(f"# {b}: not built (its LibTorch is not installed), left out")
    if not present:
        print("no bench_compare binary under", args.build)
        return 1
    env = dict(os.environ)  # the same for every run: OPENBLAS_CORETYPE, OMP settings
    ours, peers, units, versions = {}, {}, {}, {}
    for round_index in range(args.rounds):
        # Alternate the order each round, so that neither binary always runs first.
        order = present if round_index % 2 == 0 else list(reversed(present))
        for binary in order:
            version, figures = run(binary, env)
            if version is None:
                continue
            versions[binary] = version
            for name, (value, unit) in figures.items():
                if name.startswith("libtorch."):
                    peers.setdefault((version, name[len("libtorch."):]), []).append(value)
                else:
                    ours.setdefault(name, []).append(value)
                    units[name] = unit
    labels = sorted(set(versions.values()))
    print(f"# {args.rounds} rounds; medians; OPENBLAS_CORETYPE={env.get('OPENBLAS_CORETYPE', '(unset)')}; peers: "
          + ", ".join("LibTorch " + v for v in labels))
    header = f"{'figure':<28} {'tensorgen':>12} " + " ".join(f"{'LibTorch ' + v:>16}" for v in labels)
    rows, ratios, mlp_step = [], [], None
    for name in sorted(ours, key=list(ours).index):
        value = statistics.median(ours[name])
        unit = units[name]
        print(f"{name} {value:.4g} {unit}")
        theirs = {v: statistics.median(peers[(v, name)]) for v in labels if (v, name) in peers}
        for v, peer_value in theirs.items():
            print(f"libtorch-{v}.{name} {peer_value:.4g} {unit}")
        if not theirs:
            continue
        best = min(theirs.values()) if lower_is_better(unit) else max(theirs.values())
        ratio = best / value if lower_is_better(unit) else value / best
        rows.append((name, value, theirs, ratio, unit))
        ratios.append((ratio, name))
        if name == "mlp_step_ms":
            mlp_step = ratio
    print()
    print(header + f" {'ratio':>8}  (best LibTorch time / tensorgen time)")
    for name, value, theirs, ratio, unit in rows:
        cells = " ".join(f"{theirs[v]:>16.2f}" if v in theirs else f"{'-':>16}" for v in labels)
        print(f"{name:<28} {value:>12.2f} {cells} {ratio:>8.2f}  {unit}")
    if not ratios:
        print("no figure has a LibTorch peer")
        return 1
    worst = min(ratios)
    median = statistics.median(r for r, _ in ratios)
    mlp_text = f"{mlp_step:.2f}" if mlp_step is not None else "n/a"
    print(f"vs LibTorch: worst ratio {worst[0]:.2f} ({worst[1]}), median ratio {median:.2f} over {len(ratios)} cases; "
          f"mlp_step ratio {mlp_text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

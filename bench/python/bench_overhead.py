#!/usr/bin/env python3
"""Per-call overhead of the Python bindings beside torch's (the PyPI wheel), in the same run
and the same process: `a + b` on 1-element tensors, `a.sum()`, `matmul` on 64x64, and a
backward through a 10-op chain. Rounds alternate the two frameworks (which goes first
alternates too); each figure is the median over rounds, printed `name value unit`, tensorgen's
as `python.<name>` beside torch's as `torch.<name>`. The last line is exactly

    python overhead: add A ns (torch T ns), ratio R

with T and R `n/a` when torch cannot be imported. torch is this interpreter's, else the one
tools/setup-libtorch.sh installs into .venv-torch/ (tools/torch_peer.py). Run it with the
package built:
    PYTHONPATH=build/python .venv/bin/python bench/python/bench_overhead.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import timeit
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import tensorgen as tg  # noqa: E402
from torch_peer import import_torch  # noqa: E402

# Each case: the statement timed, run in a namespace made by `setup(lib)`.
CASES = {
    "add": "a + b",
    "sum": "s.sum()",
    "matmul_64": "lib.matmul(m, m)",
    "backward_chain10": "chain(x).backward()",
}


def chain(x: Any) -> Any:
    y = x
    for _ in range(5):
        y = (y * 1.5).tanh()  # two ops per round: ten in all
    return y.sum()


def setup(lib: Any) -> dict[str, Any]:
    return {"lib": lib, "a": lib.ones(1), "b": lib.ones(1), "s": lib.ones(1000), "m": lib.ones(64, 64),
            "x": lib.ones(16, requires_grad=True), "chain": chain}


class Timed:
    """One statement in one framework: calls per timing chosen once (about `seconds`)."""

    def __init__(self, stmt: str, namespace: dict[str, Any], seconds: float) -> None:
        self.timer = timeit.Timer(stmt, globals=namespace)
        self.timer.timeit(number=100)  # warm-up: caches, allocator, autograd's first graph
        one = max(self.timer.timeit(number=100) / 100, 1e-9)
        self.number = max(1, int(seconds / one))
        self.samples: list[float] = []

    def measure(self) -> None:
        self.samples.append(self.timer.timeit(number=self.number) / self.number * 1e9)

    def median(self) -> float:
        return statistics.median(self.samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9, help="alternating rounds per case (median taken)")
    parser.add_argument("--seconds", type=float, default=0.05, help="time per measurement")
    args = parser.parse_args()
    torch, source = import_torch()
    if hasattr(tg, "set_num_threads"):
        tg.set_num_threads(1)
    if torch is not None:
        torch.set_num_threads(1)
        print(f"# torch {torch.__version__} from {source}")
    else:
        print(f"# torch: n/a ({source})")
    print(f"# load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {args.rounds} alternating rounds, medians")
    ours: dict[str, float] = {}
    peer: Optional[dict[str, float]] = {} if torch is not None else None
    tg_space, torch_space = setup(tg), setup(torch) if torch is not None else None
    for name, stmt in CASES.items():
        timed = [Timed(stmt, tg_space, args.seconds)]
        if torch_space is not None:
            timed.append(Timed(stmt, torch_space, args.seconds))
        for r in range(args.rounds):
            for t in (timed if r % 2 == 0 else timed[::-1]):
                t.measure()
        ours[name] = timed[0].median()
        print(f"python.{name} {ours[name]:.0f} ns")
        if peer is not None:
            peer[name] = timed[1].median()
            print(f"torch.{name} {peer[name]:.0f} ns")
    if peer is not None:
        print(f"python overhead: add {ours['add']:.0f} ns (torch {peer['add']:.0f} ns), ratio {ours['add'] / peer['add']:.2f}")
    else:
        print(f"python overhead: add {ours['add']:.0f} ns (torch n/a ns), ratio n/a")
    return 0


if __name__ == "__main__":
    sys.exit(main())

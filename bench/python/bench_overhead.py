#!/usr/bin/env python3
"""Per-call overhead of the Python bindings, beside torch's (PyPI) when it is installed, in
the same run: `a + b` on 1-element tensors, `a.sum()`, `tg.matmul` on 64x64, and a backward
through a 10-op chain. Each figure is printed `name value unit` (the peer's as `torch.name`);
the last line is exactly

    python overhead: add A ns (torch T ns), ratio R

with T and R `n/a` when torch is not installed. Run it with the package built:
    PYTHONPATH=build/python .venv/bin/python bench/python/bench_overhead.py
"""

from __future__ import annotations

import sys
import timeit
from typing import Any, Callable, Optional

import tensorgen as tg


def per_call_ns(fn: Callable[[], Any], repeat: int = 7) -> float:
    """The best of `repeat` timings, each over enough calls to take about 0.2 s."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e9


def chain(x: Any) -> Any:
    y = x
    for _ in range(5):
        y = (y * 1.5).tanh()  # two ops per round: ten in all
    return y.sum()


def cases(lib: Any) -> dict[str, Callable[[], Any]]:
    a, b = lib.ones(1), lib.ones(1)
    s = lib.ones(1000)
    m = lib.ones(64, 64)
    x = lib.ones(16, requires_grad=True)

    def backward() -> None:
        chain(x).backward()

    return {"add": lambda: a + b, "sum": lambda: s.sum(), "matmul_64": lambda: lib.matmul(m, m),
            "backward_chain10": backward}


def main() -> int:
    try:
        import torch  # type: ignore[import-not-found]
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    tg.set_num_threads(1) if hasattr(tg, "set_num_threads") else None
    ours = {name: per_call_ns(fn) for name, fn in cases(tg).items()}
    peer: Optional[dict[str, float]] = {name: per_call_ns(fn) for name, fn in cases(torch).items()} if torch else None
    for name, value in ours.items():
        print(f"python.{name} {value:.0f} ns")
        if peer:
            print(f"torch.{name} {peer[name]:.0f} ns")
    if peer:
        print(f"python overhead: add {ours['add']:.0f} ns (torch {peer['add']:.0f} ns), ratio {ours['add'] / peer['add']:.2f}")
    else:
        print(f"python overhead: add {ours['add']:.0f} ns (torch n/a ns), ratio n/a")
    return 0


if __name__ == "__main__":
    sys.exit(main())

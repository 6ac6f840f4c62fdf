"""Test cases generated from the operator schemas: every overload that declares a scalar
`reference` (the conformance hint the C++ conformance tests also read) becomes cases that call
it from Python and compare with the reference evaluated by NumPy, on random inputs respecting
its declared `domain`, on several shapes (same shape, broadcasting, 0-dim) and dtypes."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from codegen.model import NativeFunction
from codegen.registry import load_registry

from conftest import REPOSITORY

# The C++ functions a reference may call, as NumPy functions.
_NUMPY_FUNCTIONS = {
    "std::exp": "np.exp", "std::log": "np.log", "std::sqrt": "np.sqrt", "std::tanh": "np.tanh",
    "std::fabs": "np.abs", "std::abs": "np.abs", "std::pow": "np.power", "std::min": "np.minimum",
    "std::max": "np.maximum", "std::erf": "_erf",
}
_erf = np.vectorize(math.erf, otypes=[np.float64])
_NUMPY_NAMES = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "atan2": "arctan2"}


def _split_ternary(text: str) -> Optional[tuple[str, str, str]]:
    """`c ? a : b` at the top level (outside parentheses), or None."""
    depth, question = 0, -1
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "?" and depth == 0 and question < 0:
            question = i
        elif ch == ":" and depth == 0 and question >= 0 and text[i - 1] != ":" and text[i + 1:i + 2] != ":":
            return text[:question], text[question + 1:i], text[i + 1:]
    return None


def numpy_expression(reference: str) -> str:
    ternary = _split_ternary(reference)
    if ternary:
        condition, yes, no = (numpy_expression(part.strip()) for part in ternary)
        return f"np.where({condition}, {yes}, {no})"
    for cpp, py in _NUMPY_FUNCTIONS.items():
        reference = reference.replace(cpp + "(", py + "(")
    # Any other <cmath> function is NumPy's of the same name (asin is arcsin, ...).
    return re.sub(r"std::(\w+)\(", lambda m: f"np.{_NUMPY_NAMES.get(m.group(1), m.group(1))}(", reference)


@dataclass(frozen=True)
class Case:
    name: str                # pytest id
    function: NativeFunction
    shapes: tuple            # one shape per tensor argument, in order

    @property
    def python_name(self) -> str:
        return self.function.func.base_name


def _domain_values(domain, shape, rng) -> np.ndarray:
    values = rng.uniform(-2.0, 2.0, size=shape)
    if domain is None:
        return values
    if domain.kind == "positive":
        return np.abs(values) + 0.1
    if domain.kind == "nonzero":
        return np.where(np.abs(values) < 0.1, 0.5, values)
    if domain.kind == "unit":
        return values / 2.5
    return rng.uniform(domain.low, domain.high, size=shape)


def _eligible(f: NativeFunction) -> bool:
    if not (f.conformance and f.conformance.reference and f.has_function_variant):
        return False
    if f.kind != "functional" or len(f.func.returns) != 1:
        return False
    return all(a.type.base in ("Tensor", "Scalar", "str") and not a.type.is_list for a in f.func.arguments)


SHAPE_SETS = {
    "same": lambda n: [(3, 4)] * n,
    "broadcast": lambda n: [(3, 1), (1, 4), (4,)][:n] if n > 1 else [(2, 3, 4)],
    "zero_dim": lambda n: [()] * n,
}


def cases() -> list[Case]:
    registry = load_registry([str(REPOSITORY / "schemas")])
    result = []
    for f in registry.functions:
        if not _eligible(f):
            continue
        tensors = [a for a in f.func.arguments if a.type.base == "Tensor"]
        for label, make in SHAPE_SETS.items():
            result.append(Case(f"{f.full_name}-{label}", f, tuple(make(len(tensors)))))
    return result


def run_case(case: Case, dtype: str, tg: Any) -> tuple[Any, np.ndarray]:
    """Calls the operator through tensorgen and evaluates its reference with NumPy."""
    rng = np.random.default_rng(abs(hash(case.name)) % 2**32)
    f = case.function
    hints = f.conformance
    shapes = iter(case.shapes)
    tg_args, tg_kwargs, np_env = [], {}, {"np": np, "_erf": _erf}
    for a in f.func.arguments:
        domain = hints.domain.get(a.name)
        fixed_dtype = hints.input_dtypes.get(a.name)
        if a.type.base == "Tensor":
            values = _domain_values(domain, next(shapes), rng)
            if fixed_dtype == "bool":
                values = values > 0
            else:
                values = values.astype(dtype)
            tg_args.append(tg.tensor(values))
            np_env[a.name] = values.astype(np.float64) if values.dtype != np.bool_ else values
        elif a.type.base == "Scalar":
            if a.default is not None and a.default != "None":
                value: Any = float(a.default) if "." in a.default else int(a.default)
            else:
                # A Scalar with no domain is kept positive: `pow(Scalar self, ...)` of a
                # negative base is NaN on both sides, which tests nothing.
                value = float(_domain_values(domain, (), rng)) if domain else float(rng.uniform(0.5, 2.0))
                if a.name in ("min",):
                    value = -0.5
                elif a.name in ("max",):
                    value = 0.5
            tg_args.append(value)
            np_env[a.name] = value
        else:  # str: its default
            value = a.default.strip("'\"") if a.default else ""
            tg_args.append(value)
            np_env[a.name] = value
        if a.kwarg_only:
            tg_kwargs[a.name] = tg_args.pop()
    expected = eval(numpy_expression(hints.reference), np_env)  # noqa: S307 (schema text, in-repo)
    result = getattr(tg, case.python_name)(*tg_args, **tg_kwargs)
    return result, np.asarray(expected)

"""Every derivative formula checked as an expression over the names it may use.

A backward formula may read its operator's arguments, its returns (`result`, `resultN`, a
return's name), `grad`, `grads`, `grad_<return>` and `grad_input_mask`. A forward-mode
(`result:`) formula may read the arguments and their primals (`self`, `self_p`), the tangents
of the differentiable inputs (`self_t`) and the returns, but no `grad`: forward_ad.py rewrites
exactly these names. Both may call the public operators (those with a function variant), the
helpers the formulas library declares (runtime/autograd/formulas.h, read here: the one
declaration of that list), the list functions the autograd generator saves specially
(autograd.LIST_ATTRIBUTES) and `std::get`; forward formulas also the jvp helpers of
runtime/autograd/forward_formulas.h.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from codegen.errors import ErrorCollector, SchemaError
from codegen.formula_expr import AllowedNames, check_formula
from codegen.model import DerivativeKind, Derivatives, FunctionSchema, NativeFunction

REPO_ROOT = Path(__file__).resolve().parent.parent
FORMULAS_HEADER = REPO_ROOT / "runtime" / "autograd" / "formulas.h"
# The header's formula helpers follow this line; what precedes it is node support for the
# generated apply(), which formulas have no business calling.
FORMULAS_MARKER = "// --- formulas ---"
# The jvp helpers forward-mode formulas may call besides those (every declaration in it).
FORWARD_FORMULAS_HEADER = REPO_ROOT / "runtime" / "autograd" / "forward_formulas.h"
# What any formula may use of the C++ library: an absent optional argument, and an element of
# the tuple an operator with several returns gives.
CPP_VALUES = frozenset({"std::nullopt"})
CPP_FUNCTIONS = frozenset({"std::get"})

_DECLARATION = re.compile(r"(?:^|[\s*&>])([A-Za-z_]\w*)\s*\($")


@lru_cache(maxsize=None)
def declared_helpers(header: Path = FORMULAS_HEADER) -> frozenset:
    """The names of the functions a C++ header declares after FORMULAS_MARKER (every
    declaration in it when the marker is absent)."""
    text = header.read_text(encoding="utf-8")
    if FORMULAS_MARKER in text:
        text = text.split(FORMULAS_MARKER, 1)[1]
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    names: set[str] = set()
    for statement in text.split(";"):
        # The name right before the first '(' at depth 0 of a declaration.
        head = statement.split("(", 1)[0] + "("
        match = _DECLARATION.search(head.strip())
        if match and "(" in statement:
            names.add(match.group(1))
    return frozenset(names)


def derivative_names(func: FunctionSchema, functions: frozenset) -> AllowedNames:
    """What a derivative formula of `func` may use; `functions` are the callable names."""
    values = set(func.argument_names) | set(func.output_names)
    values |= {"grad", "grads", "grad_input_mask"}
    values |= {f"grad_{r.name}" for r in func.returns if r.name}
    return AllowedNames(frozenset(values) | CPP_VALUES, functions)


def tangent_inputs(func: FunctionSchema, derivatives: Derivatives) -> tuple[str, ...]:
    """The inputs that have a tangent (`<name>_t`): the Tensor arguments whose backward entry
    is not non_differentiable, as autograd.autograd_kernels chooses its differentiable inputs."""
    names = []
    for a in func.arguments:
        if a.type.base != "Tensor" or a.is_out:
            continue
        d = derivatives.backward_for(a.name)
        if d is not None and d.kind != DerivativeKind.non_differentiable:
            names.append(a.name)
    return tuple(names)


def forward_names(func: FunctionSchema, derivatives: Derivatives, functions: frozenset) -> AllowedNames:
    """What a forward-mode formula of `func` may use (see forward_ad._Rewriter, which gives
    each of these names its C++ meaning); `functions` are the callable names."""
    arguments = [a.name for a in func.arguments if not a.is_out]
    values = set(arguments) | {f"{name}_p" for name in arguments}
    values |= {f"{name}_t" for name in tangent_inputs(func, derivatives)}
    values |= set(func.output_names)
    return AllowedNames(frozenset(values) | CPP_VALUES, functions | declared_helpers(FORWARD_FORMULAS_HEADER))


def callable_names(functions: Sequence[NativeFunction]) -> frozenset:
    """Operators with a function variant, formula helpers, and the list functions."""
    from codegen.autograd import LIST_ATTRIBUTES  # autograd imports the model only: no cycle

    operators = {f.func.name for f in functions if f.has_function_variant}
    return frozenset(operators) | declared_helpers() | frozenset(LIST_ATTRIBUTES) | CPP_FUNCTIONS


def check_derivative_formulas(functions: Sequence[NativeFunction], errors: ErrorCollector) -> None:
    callables = callable_names(functions)
    for f in functions:
        if f.derivatives is None:
            continue
        backward = derivative_names(f.func, callables)
        forward = forward_names(f.func, f.derivatives, callables)
        for derivatives, allowed, kind in ((f.derivatives.backward, backward, "derivative formula"),
                                           (f.derivatives.forward, forward, "forward-mode formula")):
            for derivative in derivatives:
                if derivative.kind != DerivativeKind.formula:
                    continue
                what = f"{kind} for '{', '.join(derivative.names)}' of '{f.full_name}'"
                try:
                    check_formula(derivative.formula, allowed, derivative.loc, what)
                except SchemaError as error:
                    errors.add(error)


# The <cmath> functions a conformance reference may call: the reference is a scalar C++
# expression evaluated with doubles (templates/ConformanceTests.cpp.j2), so this is the
# whole of what it needs; anything else a reference calls is refused.
REFERENCE_FUNCTIONS = frozenset(f"std::{name}" for name in (
    "abs", "fabs", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sqrt", "cbrt", "pow", "hypot",
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
    "atanh", "erf", "erfc", "lgamma", "tgamma", "floor", "ceil", "round", "trunc", "fmod",
    "remainder", "copysign", "min", "max", "fmin", "fmax", "isnan", "isinf", "isfinite",
    "signbit"))


def reference_names(func: FunctionSchema) -> AllowedNames:
    """What a conformance reference of `func` may use: the arguments the generated reference
    function defines as locals (see conformance.reference_locals), and <cmath>."""
    from codegen.conformance import REFERENCE_TYPES  # conformance imports the registry

    values = {a.name for a in func.non_out_arguments
              if (a.type.base in REFERENCE_TYPES and not a.type.is_list)
              or (a.type.base == "str" and not a.type.is_list and not a.type.optional)}
    return AllowedNames(frozenset(values), REFERENCE_FUNCTIONS)


def check_reference(text: str, func: FunctionSchema, location) -> str:
    """`text` when it is a valid reference of `func`; raises SchemaError at `location`."""
    check_formula(text, reference_names(func), location,
                  f"conformance 'reference' of '{func.full_name}'")
    return text

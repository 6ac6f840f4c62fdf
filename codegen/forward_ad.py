"""Forward-mode (tangent) rules of every operator's Autograd-key kernel.

An overload's `derivatives:` block gives each differentiable output a tangent rule:
  - `result: <formula>`: a C++ expression over the primals (`self`, or `self_p`), the tangents
    (`self_t`), the non-tensor arguments and the outputs (`result`, `resultN`, a return name);
  - `result: auto_element_wise`: the sum, over the differentiable inputs, of each input's
    backward formula with `grad` read as that input's tangent (valid for elementwise ops,
    whose Jacobian is diagonal, so J u equals Jᵀ u with u in grad's place);
  - `result: auto_linear`: the operator itself applied to the tangents (valid for ops linear
    in their differentiable inputs: views, sums, cat, index_select, ...);
  - `forward: not_implemented("reason")`: a dual input raises, saying why.
In-place overloads inherit their functional's rules; there `self` reads the value from before
the operation and `result` the value after it. See docs/transforms.md.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Optional

from codegen import cpp_api
from codegen.errors import Location, SchemaError
from codegen.line_directives import line_directive
from codegen.model import DerivativeKind, NativeFunction

IDENTIFIER = re.compile(r"(?<![\w.:>])([A-Za-z_]\w*)\b(?!\s*::)")


@dataclass(frozen=True)
class TangentInput:
    name: str         # the argument
    local: str        # the C++ local holding its tangent ("self_t")


@dataclass(frozen=True)
class ForwardOutput:
    target: str       # C++ naming the output tensor ("result", "std::get<0>(result)", "self")
    expression: str   # C++ computing its tangent
    source: Location  # the rule's schema line: the formula's, or `result: auto_...`'s

    @property
    def line_directive(self) -> str:
        """`#line` naming the rule's schema line (Note [Formulas keep their line])."""
        return line_directive(self.source)


@dataclass(frozen=True)
class ForwardRule:
    inputs: tuple[TangentInput, ...]     # the differentiable inputs, whose tangents are read
    outputs: tuple[ForwardOutput, ...]   # empty when not_implemented is set
    not_implemented: Optional[str]
    reads_primal_before: bool            # in-place: a formula reads self's value before the op

    @property
    def reason_literal(self) -> str:
        """not_implemented's reason as a C++ string literal."""
        return json.dumps(self.not_implemented or "")


def _output_index(source: NativeFunction, name: str) -> Optional[int]:
    returns = source.func.returns
    if name == "result" and len(returns) == 1:
        return 0
    match = re.fullmatch(r"result(\d+)", name)
    if match and int(match.group(1)) < len(returns):
        return int(match.group(1))
    return next((i for i, r in enumerate(returns) if r.name == name), None)


class _Rewriter:
    def __init__(self, source: NativeFunction, diff_inputs: tuple[str, ...], inplace: bool):
        self.source, self.diff_inputs, self.inplace = source, diff_inputs, inplace
        self.arguments = {a.name for a in source.func.arguments if not a.is_out}
        self.reads_primal_before = False

    def output(self, index: int) -> str:
        if self.inplace:
            return "self"
        return "result" if len(self.source.func.returns) == 1 else f"std::get<{index}>(result)"

    def primal(self, name: str) -> str:
        if self.inplace and name == "self":
            self.reads_primal_before = True
            return "self_before"
        return name

    def rewrite(self, formula: str, grad_as: Optional[str] = None) -> str:
        def identifier(match: re.Match) -> str:
            name = match.group(1)
            if grad_as is not None and name == "grad":
                return grad_as
            if name.endswith("_t") and name[:-2] in self.diff_inputs:
                return name
            if name.endswith("_p") and name[:-2] in self.arguments:
                return self.primal(name[:-2])
            if name in self.arguments:
                return self.primal(name)
            index = _output_index(self.source, name)
            if index is not None:
                return self.output(index)
            return name

        return IDENTIFIER.sub(identifier, formula)


def forward_rule(f: NativeFunction, source: NativeFunction, diff_inputs: tuple[str, ...],
                 inplace: bool) -> ForwardRule:
    """The tangent rule of kernel `f`, whose formulas come from `source` (f itself, or the
    functional overload an in-place one inherits from)."""
    derivatives = source.derivatives
    assert derivatives is not None
    inputs = tuple(TangentInput(n, f"{n}_t") for n in diff_inputs)
    if derivatives.forward_not_implemented is not None:
        return ForwardRule(inputs, (), derivatives.forward_not_implemented, False)
    rewriter = _Rewriter(source, diff_inputs, inplace)
    outputs = []
    for d in derivatives.forward:
        index = _output_index(source, d.names[0])
        assert index is not None  # the parser checked the key
        target = rewriter.output(index)
        if d.kind == DerivativeKind.not_implemented:
            return ForwardRule(inputs, (), d.reason or "not implemented", False)
        if d.kind == DerivativeKind.formula:
            expression = rewriter.rewrite(d.formula)
        elif d.kind == DerivativeKind.auto_element_wise:
            expression = _element_wise(source, diff_inputs, rewriter, d.loc)
        elif d.kind == DerivativeKind.auto_linear:
            expression = _linear(source, diff_inputs, index, d.loc)
        else:
            raise SchemaError(d.loc, f"'{source.full_name}': '{d.kind}' is not a forward-mode rule")
        outputs.append(ForwardOutput(target, expression, d.source_loc))
    return ForwardRule(inputs, tuple(outputs), None, rewriter.reads_primal_before)


def _element_wise(source: NativeFunction, diff_inputs: tuple[str, ...], rewriter: _Rewriter,
                  loc) -> str:
    terms = []
    for b in source.derivatives.backward:
        targets = [n for n in b.names if n in diff_inputs]
        if not targets:
            continue
        if len(b.names) > 1 or b.kind != DerivativeKind.formula or "grad_input_mask" in b.formula \
                or "grads[" in b.formula:
            raise SchemaError(loc, f"'{source.full_name}': auto_element_wise needs one plain backward "
                                   f"formula per input; '{', '.join(b.names)}' is not one: write "
                                   "'result: <formula>'")
        terms.append("(" + rewriter.rewrite(b.formula, grad_as=f"{targets[0]}_t") + ")")
    if not terms:
        raise SchemaError(loc, f"'{source.full_name}': auto_element_wise without a differentiable input")
    return " + ".join(terms)


def _linear(source: NativeFunction, diff_inputs: tuple[str, ...], index: int, loc) -> str:
    if source.kind.name != "functional":
        raise SchemaError(loc, f"'{source.full_name}': auto_linear needs a functional overload")
    op = cpp_api.operator_of(source)
    arguments = [f"{a.name}_t" if a.name in diff_inputs else a.name
                 for a in source.func.arguments if not a.is_out]
    call = f"ops::{op.cpp_name}::call({', '.join(arguments)})"
    return call if len(source.func.returns) == 1 else f"std::get<{index}>({call})"

"""Reads an entry's `derivatives:` mapping (our inline form of derivatives.yaml).

Keys: an argument name, or several joined by commas (`self, other`: one formula computes
the gradients of all of them, as in derivatives.yaml); an output name (`result` when there
is one return, `result0`, `result1`, ... or a named return) for a forward-mode formula;
or `output_differentiability`, one bool per return.
Values: a C++ expression, `non_differentiable`, or `not_implemented("reason")`.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from codegen.errors import ErrorCollector, Location, SchemaError, describe_yaml_value, suggestion
from codegen.model import Derivative, DerivativeKind, Derivatives, FunctionSchema
from codegen.yaml_values import expect_bool, expect_list, expect_mapping, item_loc

OUTPUT_DIFFERENTIABILITY = "output_differentiability"
FORWARD = "forward"
FORWARD_ONLY_KINDS = {"auto_element_wise": DerivativeKind.auto_element_wise,
                      "auto_linear": DerivativeKind.auto_linear}
NON_DIFFERENTIABLE = "non_differentiable"
_RESULT = re.compile(r"result\d*\Z")
_NOT_IMPLEMENTED = re.compile(
    r"""not_implemented\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*\)\Z""")


def parse_derivatives(value: Any, loc: Location, path: str, func: FunctionSchema,
                      errors: ErrorCollector) -> Derivatives:
    name = func.full_name
    mapping = expect_mapping(value, loc, f"'derivatives' of '{name}'")
    backward: list[Derivative] = []
    forward: list[Derivative] = []
    output_differentiability = None
    forward_not_implemented = None
    errors_before = len(errors)
    first_line: dict[str, int] = {}
    for key, formula in mapping.items():
        key_loc = Location(path, mapping.line_of(key))
        with errors.collecting():
            if key == OUTPUT_DIFFERENTIABILITY:
                output_differentiability = _parse_output_differentiability(
                    formula, key_loc, path, func)
                continue
            if key == FORWARD:
                parsed = _parse_formula(formula, ("forward",), key_loc, name)
                if parsed.kind != DerivativeKind.not_implemented:
                    raise SchemaError(key_loc, f"'forward' of '{name}' takes only "
                                               "not_implemented(\"reason\"); give a tangent "
                                               "formula as 'result: ...'")
                forward_not_implemented = parsed.reason
                continue
            names = _parse_key(str(key), key_loc, func)
            for variable in names:
                if variable in first_line:
                    raise SchemaError(key_loc, f"derivative for '{variable}' of '{name}' given "
                                               f"twice (first at line {first_line[variable]})")
                first_line[variable] = key_loc.line
            derivative = _parse_formula(formula, names, key_loc, name,
                                        Location(path, mapping.value_line_of(key)))
            is_backward = names[0] in func.argument_names
            if is_backward and derivative.kind in FORWARD_ONLY_KINDS.values():
                raise SchemaError(key_loc, f"'{derivative.kind}' of '{name}' is a forward-mode "
                                           f"rule: write it as 'result: {derivative.kind}'")
            (backward if is_backward else forward).append(derivative)
    derivatives = Derivatives(tuple(backward), tuple(forward), output_differentiability, loc,
                              forward_not_implemented)
    if len(errors) == errors_before:  # a mistake above already explains the entry
        with errors.collecting():
            _check_forward_rules(derivatives, loc, func)
    return derivatives


def _check_forward_rules(d: Derivatives, loc: Location, func: FunctionSchema) -> None:
    """An overload with a backward formula declares a tangent rule for each differentiable
    output, or says `forward: not_implemented("reason")` (see docs/transforms.md)."""
    has_backward = any(b.kind != DerivativeKind.non_differentiable for b in d.backward)
    if d.forward_not_implemented is not None:
        if d.forward:
            raise SchemaError(d.forward[0].loc, f"'{func.full_name}' gives a tangent formula "
                                                "and also forward: not_implemented")
        return
    if not has_backward:
        return
    mask = d.output_differentiability or (True,) * len(func.returns)
    def names_of(index: int) -> list[str]:
        names = ["result"] if len(func.returns) == 1 else []
        return names + [f"result{index}"] + ([func.returns[index].name] if func.returns[index].name else [])

    missing = [names_of(i)[0] for i, flag in enumerate(mask)
               if flag and all(d.forward_for(n) is None for n in names_of(i))]
    if missing:
        raise SchemaError(loc, f"'{func.full_name}' has a backward formula but no forward-mode "
                               f"rule for {', '.join(repr(m) for m in missing)}: add "
                               f"'{missing[0]}: <formula>', '{missing[0]}: auto_element_wise' or "
                               f"'{missing[0]}: auto_linear', or 'forward: not_implemented(\"reason\")'")


def _parse_key(key: str, loc: Location, func: FunctionSchema) -> tuple[str, ...]:
    """The names in a key, all inputs or all outputs; raises on an unknown name."""
    names = tuple(part.strip() for part in key.split(","))
    inputs, outputs = func.argument_names, func.output_names
    for variable in names:
        if not variable:
            raise SchemaError(loc, f"derivative key '{key}' of '{func.full_name}' has an "
                                   "empty name")
        if variable not in inputs and variable not in outputs:
            if _RESULT.match(variable):
                count = len(func.returns)
                raise SchemaError(loc, f"derivative for unknown output '{variable}' of "
                                       f"'{func.full_name}', which returns {count} "
                                       + ("value" if count == 1 else "values")
                                       + suggestion(variable, outputs))
            raise SchemaError(loc, f"derivative for unknown argument '{variable}' of "
                                   f"'{func.full_name}'"
                                   + suggestion(variable, inputs + outputs))
        argument = func.argument(variable)
        if argument is not None and not argument.type.is_tensor_like:
            raise SchemaError(loc, f"derivative for '{variable}' of '{func.full_name}', which "
                                   f"is not a Tensor ({argument.type}); only Tensor arguments "
                                   "have gradients")
    if len({variable in inputs for variable in names}) > 1:
        raise SchemaError(loc, f"derivative key '{key}' of '{func.full_name}' mixes inputs "
                               "and outputs")
    return names


def _parse_formula(value: Any, names: tuple[str, ...], loc: Location,
                   op_name: str, formula_loc: Optional[Location] = None) -> Derivative:
    what = f"derivative formula for '{', '.join(names)}' of '{op_name}'"
    if not isinstance(value, str) or not value.strip():
        raise SchemaError(loc, f"{what} must be a C++ expression, non_differentiable or "
                               f"not_implemented(\"reason\"), found {describe_yaml_value(value)}")
    text = value.strip()
    if text == NON_DIFFERENTIABLE:
        return Derivative(names, DerivativeKind.non_differentiable, "", None, loc)
    if text in FORWARD_ONLY_KINDS:
        return Derivative(names, FORWARD_ONLY_KINDS[text], "", None, loc)
    if text.startswith("not_implemented"):
        match = _NOT_IMPLEMENTED.match(text)
        if match is None:
            raise SchemaError(loc, f"{what}: write not_implemented(\"reason\"), "
                                   f"found '{text}'")
        reason = match.group(1) if match.group(1) is not None else match.group(2)
        return Derivative(names, DerivativeKind.not_implemented, "", reason, loc)
    return Derivative(names, DerivativeKind.formula, text, None, loc, formula_loc)


def _parse_output_differentiability(value: Any, loc: Location, path: str,
                                    func: FunctionSchema) -> tuple[bool, ...]:
    what = f"'{OUTPUT_DIFFERENTIABILITY}' of '{func.full_name}'"
    items = expect_list(value, loc, what)
    flags = tuple(expect_bool(item, item_loc(path, items, index), f"each entry of {what}")
                  for index, item in enumerate(items))
    if len(flags) != len(func.returns):
        count = len(func.returns)
        raise SchemaError(loc, f"{what} has {len(flags)} entries but the overload returns "
                               f"{count} " + ("value" if count == 1 else "values"))
    return flags

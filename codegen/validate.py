"""Rules that span several fields of an entry or several entries, checked in one place.

Each rule reports into an ErrorCollector at the line of the offending key (or of the
entry's `func` for rules about the schema itself) and, where one is obvious, says the fix.
Entries that had mistakes of their own arrive too (a bad field replaced by its default),
with their names in `incomplete`: rules about one entry still run on them, but a rule that
looks at another entry through a delegate does not, so no follow-on error is reported.
"""

from __future__ import annotations

from typing import AbstractSet, Sequence

from codegen import cpp_types
from codegen.check_formulas import check_derivative_formulas
from codegen.check_names import check_names
from codegen.errors import ErrorCollector, Location, suggestion
from codegen.kernel_families import check_families, check_kernel
from codegen.model import FunctionSchema, NativeFunction, SchemaKind
from codegen.parse_entries import ParsedEntries
from codegen.scalar_overloads import check_scalar_overloads


def validate(parsed: ParsedEntries, errors: ErrorCollector) -> None:
    functions, incomplete = parsed.functions, parsed.incomplete
    for f in functions:
        _check_arguments(f.func, errors)
        check_names(f.func, errors)
        reported = len(errors)
        _check_inplace(f.func, errors)
        _check_out(f.func, errors)
        if len(errors) == reported:  # else the returns were already found wanting
            _check_aliasing_returns(f.func, errors)
        _check_entry_keys(f, errors)
        check_kernel(f, errors)
    _check_duplicates(parsed.declared, errors)
    _check_delegates(functions, incomplete, errors)
    _check_cpp_names(functions, errors)
    check_families(functions, errors)
    check_scalar_overloads(functions, errors)
    check_derivative_formulas(functions, errors)


# --- One schema ------------------------------------------------------------------------


def _check_arguments(func: FunctionSchema, errors: ErrorCollector) -> None:
    """Names are unique and not C++ keywords; types have a C++ mapping; defaults fit."""
    seen: set[str] = set()
    for argument in func.arguments:
        where = f"argument '{argument.name}' of '{func.full_name}'"
        if argument.name in seen:
            errors.error(func.loc, f"{where} appears twice")
        seen.add(argument.name)
        if argument.name in cpp_types.CPP_KEYWORDS:
            errors.error(func.loc, f"{where} is a C++ keyword; rename it")
        try:
            cpp_types.argument_type(argument.type)
        except cpp_types.UnsupportedType as error:
            errors.error(func.loc, f"{where}: {error}")
            continue
        if argument.default is not None:
            try:
                cpp_types.default_value(argument.type, argument.default)
            except cpp_types.BadDefault as error:
                errors.error(func.loc, f"default '{argument.default}' of {where} does not fit "
                                       f"'{argument.type}': {error}")
    for index, result in enumerate(func.returns):
        try:
            cpp_types.return_type(result.type)
        except cpp_types.UnsupportedType as error:
            errors.error(func.loc, f"return {index} of '{func.full_name}': {error}")


def _check_inplace(func: FunctionSchema, errors: ErrorCollector) -> None:
    """add_: writes to `Tensor(a!) self` and returns it; a list self (`Tensor(a!)[] self`,
    the _foreach_ family) may return nothing instead."""
    if not func.is_inplace_name or func.out_arguments:
        return
    self_argument = func.self_argument
    if self_argument is None or not (self_argument.type.base == "Tensor"
                                     and self_argument.type.is_write):
        found = f"'{self_argument}'" if self_argument else "no 'self' argument"
        errors.error(func.loc, f"in-place overload '{func.full_name}' must take "
                               f"'Tensor(a!) self', found {found}")
        return
    expected = str(self_argument.type)
    returned = tuple(str(r.type) for r in func.returns)
    if returned != (expected,) and not (not returned and self_argument.type.is_list):
        errors.error(func.loc, f"in-place overload '{func.full_name}' must return "
                               f"'{expected}' (self), found '{func.returns_text()}'")


def _check_out(func: FunctionSchema, errors: ErrorCollector) -> None:
    """add.out: every keyword-only Tensor is a distinct `Tensor(x!)`, and the returns are
    those arguments, in order (or `()` for list outputs)."""
    is_out_name = func.overload_name == "out" or func.overload_name.endswith("_out")
    if not is_out_name and func.kind != SchemaKind.out:
        return
    candidates = [a for a in func.kwarg_only_arguments
                  if a.type.base == "Tensor" and not a.type.optional and a.default is None]
    if not candidates:
        errors.error(func.loc, f"out overload '{func.full_name}' has no keyword-only out "
                               "argument such as '*, Tensor(a!) out'")
        return
    for argument in candidates:
        if not argument.type.is_write:
            errors.error(func.loc, f"out argument '{argument.name}' of '{func.full_name}' must "
                                   f"be annotated 'Tensor(a!)', found '{argument.type}'")
    outs = func.out_arguments
    if len(outs) != len(candidates):
        return
    # The wrappers scan the inputs, then the outs, once (See checked_output_device in
    # runtime/ops/device_check.h): an input tensor after an out would be scanned as an out.
    first_out = func.arguments.index(outs[0])
    for argument in func.arguments[first_out:]:
        if argument.type.base == "Tensor" and not argument.is_out:
            errors.error(func.loc, f"tensor argument '{argument.name}' of '{func.full_name}' comes "
                                   f"after the out argument '{outs[0].name}': put every out argument last")
    owners: dict[str, str] = {}
    for argument in outs:
        alias_set = argument.type.annotation.alias_set
        if alias_set in owners:
            errors.error(func.loc, f"out arguments '{owners[alias_set]}' and '{argument.name}' "
                                   f"of '{func.full_name}' share alias set '{alias_set}'")
        owners.setdefault(alias_set, argument.name)
    returned = tuple(str(r.type) for r in func.returns)
    expected = tuple(str(a.type) for a in outs)
    if returned != expected and not (not returned and all(a.type.is_list for a in outs)):
        shown = expected[0] if len(expected) == 1 else "(" + ", ".join(expected) + ")"
        names = ", ".join(f"'{a.name}'" for a in outs)
        errors.error(func.loc, f"out overload '{func.full_name}' must return '{shown}' "
                               f"(aliasing {names}), found '{func.returns_text()}'")


def _check_aliasing_returns(func: FunctionSchema, errors: ErrorCollector) -> None:
    """An annotated return aliases an argument with the same annotation."""
    annotations = {a.type.annotation for a in func.arguments if a.type.annotation}
    for result in func.returns:
        annotation = result.type.annotation
        if annotation is not None and annotation not in annotations:
            errors.error(func.loc, f"return '{result}' of '{func.full_name}' aliases no "
                                   f"argument (none is annotated '{annotation}')")


# --- One entry -------------------------------------------------------------------------


def _check_entry_keys(f: NativeFunction, errors: ErrorCollector) -> None:
    name = f.full_name
    if f.structured and f.kind != SchemaKind.out:
        errors.error(f.loc_of("structured"),
                     f"'structured: True' on '{name}', which is not an out overload; only out "
                     "overloads are structured, the others name one with structured_delegate")
    if f.structured_delegate is not None and "dispatch" in f.key_locs:
        errors.error(f.loc_of("dispatch"),
                     f"'{name}' has both 'dispatch' and 'structured_delegate'; its kernels come "
                     f"from '{f.structured_delegate}', so remove 'dispatch'")
    if f.structured_delegate is not None and f.kind == SchemaKind.out:
        errors.error(f.loc_of("structured_delegate"),
                     f"out overload '{name}' cannot have a structured_delegate; mark it "
                     "'structured: True' instead")
    if "CompositeImplicitAutograd" in f.dispatch and len(f.dispatch) > 1:
        errors.error(f.loc_of("dispatch"),
                     f"'{name}' combines CompositeImplicitAutograd with other dispatch keys; "
                     "a decomposition serves every backend")
    if f.has_method_variant and (f.func.self_argument is None
                                 or not f.func.self_argument.type.is_tensor):
        errors.error(f.loc_of("variants"),
                     f"'{name}' has a method variant but no 'Tensor self' argument")


# --- Across entries --------------------------------------------------------------------


def _check_duplicates(declared: Sequence[tuple[str, Location]], errors: ErrorCollector) -> None:
    first: dict[str, Location] = {}
    for name, loc in declared:
        if name in first:
            errors.error(loc, f"duplicate overload '{name}' (first declared at {first[name]})")
        else:
            first[name] = loc


def _check_delegates(functions: Sequence[NativeFunction], incomplete: AbstractSet[str],
                     errors: ErrorCollector) -> None:
    by_name = {f.full_name: f for f in functions}
    members: dict[str, dict[SchemaKind, NativeFunction]] = {}
    for f in functions:
        target_name = f.structured_delegate
        if target_name is None or target_name in incomplete:
            continue
        loc = f.loc_of("structured_delegate")
        target = by_name.get(target_name)
        if target is None:
            errors.error(loc, f"structured_delegate '{target_name}' of '{f.full_name}' names "
                              "no overload" + suggestion(target_name, list(by_name), 0))
            continue
        if not target.structured:
            errors.error(loc, f"structured_delegate '{target_name}' of '{f.full_name}' is not "
                              f"structured; add 'structured: True' to '{target_name}'")
            continue
        if f.func.signature_key() != target.func.signature_key():
            errors.error(loc, f"'{f.full_name}' takes ({_non_out_text(f.func)}) but its "
                              f"structured_delegate '{target_name}' takes "
                              f"({_non_out_text(target.func)})")
        group = members.setdefault(target_name, {})
        if f.kind in group:
            errors.error(loc, f"'{f.full_name}' and '{group[f.kind].full_name}' are both "
                              f"{f.kind} overloads delegating to '{target_name}'")
        group.setdefault(f.kind, f)


def _non_out_text(func: FunctionSchema) -> str:
    return ", ".join(str(a) for a in func.non_out_arguments)


def _check_cpp_names(functions: Sequence[NativeFunction], errors: ErrorCollector) -> None:
    owner: dict[str, str] = {}
    for f in functions:
        cpp_name = cpp_types.overload_cpp_name(f.func)
        other = owner.setdefault(cpp_name, f.full_name)
        if other != f.full_name:
            errors.error(f.func.loc, f"'{f.full_name}' and '{other}' have the same C++ name "
                                     f"'{cpp_name}'; rename one overload")

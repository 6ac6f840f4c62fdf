"""Scalar overloads declared in the schema: the `scalar_overload_of:` key.

Note [Scalar overloads from the schema]
A pointwise operator's Scalar overload (add.Scalar, eq_.Scalar) is its Tensor overload with
the Scalar wrapped in a zero-dim "wrapped number" tensor, so that type promotion sees it as
PyTorch does (int_tensor + 2.5 is float32, not float64) and the one structured kernel serves
both. The entry says so instead of naming a kernel:

    - func: add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
      variants: function, method
      scalar_overload_of: add.Tensor

Its dispatch is implied, {CompositeImplicitAutograd: add_scalar} (add_scalar_ for the in-place
overload), so autograd flows through the Tensor overload, and the generator writes the kernel
(ScalarOverloads.cpp): `return ops::add_Tensor::call(self, wrapped_scalar_tensor(other),
alpha);`. The twin must have the same arguments but for one Scalar that is a Tensor there,
and be functional or in place as this overload is. pow's Scalar overloads stay hand-written
(kernels/composite/scalar_ops.cpp): they check the exponent first and have their own names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from codegen.errors import ErrorCollector, suggestion
from codegen.model import FrozenDict, FunctionSchema, NativeFunction, SchemaKind


def implied_dispatch(func: FunctionSchema) -> FrozenDict:
    """add.Scalar -> {CompositeImplicitAutograd: add_scalar}; add_.Scalar -> add_scalar_."""
    suffix = "_" if func.kind == SchemaKind.inplace else ""
    return FrozenDict({"CompositeImplicitAutograd": f"{func.root_name}_scalar{suffix}"})


def wrapped_position(f: NativeFunction, twin: NativeFunction) -> int | None:
    """The argument `f` takes as a Scalar where `twin` takes a Tensor, when that is the only
    difference between their arguments; else None."""
    mine, theirs = f.func.arguments, twin.func.arguments
    if len(mine) != len(theirs):
        return None
    differences = [i for i, (a, b) in enumerate(zip(mine, theirs)) if str(a) != str(b)]
    if len(differences) != 1:
        return None
    i = differences[0]
    a, b = mine[i], theirs[i]
    if a.name != b.name or str(a.type) != "Scalar" or str(b.type) != "Tensor" or a.default != b.default:
        return None
    return i


def check_scalar_overloads(functions: Sequence[NativeFunction], errors: ErrorCollector) -> None:
    """Every `scalar_overload_of` names an overload whose arguments are this one's with a
    Tensor for one Scalar, of the same kind; and the entry names no dispatch of its own."""
    by_name = {f.full_name: f for f in functions}
    for f in functions:
        if f.scalar_overload_of is None:
            continue
        where = f.loc_of("scalar_overload_of")
        name = f.full_name
        if f.structured or f.structured_delegate:
            errors.error(where, f"'scalar_overload_of' on '{name}', which is structured; a Scalar "
                                "overload calls its Tensor twin and has no kernel of its own")
            continue
        if "dispatch" in f.key_locs:
            errors.error(f.loc_of("dispatch"),
                         f"'{name}' has both 'scalar_overload_of' and 'dispatch'; its kernel is "
                         "generated, so remove 'dispatch'")
        twin = by_name.get(f.scalar_overload_of)
        if twin is None:
            errors.error(where, f"'scalar_overload_of' of '{name}' names '{f.scalar_overload_of}', "
                                "which is not declared"
                         + suggestion(f.scalar_overload_of, tuple(by_name)))
            continue
        if twin.scalar_overload_of is not None or twin.kind != f.kind \
                or wrapped_position(f, twin) is None:
            errors.error(where, f"'{name}' is not a Scalar overload of '{twin.full_name}': expected "
                                f"the arguments of '{twin.full_name}' ({', '.join(map(str, twin.func.arguments))}) "
                                "with one Tensor a Scalar, and both functional or both in place")


@dataclass(frozen=True)
class ScalarOverload:
    """One generated Scalar overload, as ScalarOverloads.cpp.j2 sees it."""

    kernel: str    # add_scalar
    returns: str   # Tensor
    params: str    # const Tensor& self, const Scalar& other, const Scalar& alpha
    twin: str      # add_Tensor: ops::add_Tensor::call
    args: str      # self, wrapped_scalar_tensor(other), alpha
    inplace: bool  # returns self after the call


def scalar_overloads(functions: Sequence[NativeFunction]) -> list[ScalarOverload]:
    """The Scalar overloads to generate, in schema order (validated entries only)."""
    from codegen import cpp_api  # cpp_api reads the registry, which parsing builds with this module
    by_name = {f.full_name: f for f in functions}
    overloads: list[ScalarOverload] = []
    for f in functions:
        if f.scalar_overload_of is None:
            continue
        twin = by_name[f.scalar_overload_of]
        position = wrapped_position(f, twin)
        op = cpp_api.operator_of(f)
        args = [f"wrapped_scalar_tensor({a.name})" if i == position else a.name
                for i, a in enumerate(f.func.arguments)]
        overloads.append(ScalarOverload(
            f.dispatch["CompositeImplicitAutograd"], op.returns, op.params,
            cpp_api.operator_of(twin).cpp_name, ", ".join(args), f.kind == SchemaKind.inplace))
    return overloads

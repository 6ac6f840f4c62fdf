"""Pointwise kernels declared in the schema: the `kernel:` key and its families.

Note [Kernels declared in the schema]
A structured out overload may say, instead of `dispatch:`,

    kernel: {family: float_unary, formula: "TG_PM_CALL(cbrt, x)"}

Its CPU and CUDA kernels are then one case of a family's hand-written loops (kernels/
pointwise_math_loops.h): the loop takes the operator as a run-time enum, as Note [One kernel
per family and dtype] (kernels/cuda/binary_ops.cu) asks, and calls a formula switch. From the
entries of each family the generator writes, in schema order:
  - PointwiseKernels.h: the enum, the name table, the dtype class of each operator and the
    formula switch (host and device), included only by the family's kernel files and .cu;
  - PointwiseKernels.cpp: the meta functions and the CPU kernels, one line each, calling the
    family's meta and CPU loop (for a family whose CPU loop is a template, its CPU kernels are
    in PointwiseKernelsCPU_<family>.cpp, one unit per family: codegen/render.py);
  - PointwiseKernelsCUDA.cpp (CUDA builds only): the CUDA kernels, calling the CUDA loop.
The entry's dispatch table is implied ({CPU: <op>_out_cpu, CUDA: <op>_out_cuda}), so the
registration and NativeFunctions.h are what `dispatch:` would give. Everything that could be
one plain C++ function (the loops, the dtype dispatch, the launch) stays hand-written; the
generator writes only what differs per operator. As torchgen's `ufunc_inner_loop`, but the
formula lives in the schema, and a formula too long for YAML is a function in
kernels/pointwise_math.h (erfinv).

Two sub-keys serve the older operators of schemas/pointwise.yaml (family `unary`):
  - `vectorized: True`: the formula is generic (activation_math.h style) and also compiles
    for cpu::Vectorized, so the CPU kernel takes the vector path for contiguous float
    tensors (cpu/vectorized_loops.h). The CPU loop of such a family is a template on the
    operator (kernels/cpu/unary_family_loop.h): the vector loop needs the formula compiled in.
  - `meta: custom`: the meta function (meta::<op>_out) is hand-written, for an operator whose
    checks are its own (neg refuses bool with PyTorch's message); the kernels are generated.
The comparisons (family `compare`: eq ... ge) have a bool formula and a template CPU loop
(kernels/cpu/compare_family_loop.h), as their hand-written kernels had. The arithmetic
operators (family `binary`: add, sub, mul, div, pow) take one of several signatures: add and
sub have `Scalar alpha`, which their formula reads as `alpha` (a formula of an operator
without alpha may not name it), and pow's out overload is `.Tensor_Tensor_out` with operand
`exponent`, as PyTorch names them; `dtypes: numeric` (no bool) joins `all` and `floating`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from codegen import cpp_types
from codegen.errors import ErrorCollector, Location, SchemaError, suggestion
from codegen.line_directives import line_directive
from codegen.model import FrozenDict, FunctionSchema, NativeFunction, PointwiseKernel, SchemaKind
from codegen.yaml_values import Node, expect_bool, expect_mapping, expect_string

KERNEL_KEYS = ("family", "formula", "dtypes", "vectorized", "meta")
# floating: the floating types, computed in opmath; an integral input gives the default dtype.
# numeric: every dtype but bool. all: every dtype, the result type of the operands.
DTYPE_CLASSES = ("floating", "numeric", "all")
META_KINDS = ("family", "custom")


@dataclass(frozen=True)
class Signature:
    """The non-out arguments and the name of an out overload a family accepts."""

    arguments: tuple[str, ...]  # "Tensor self", "Scalar alpha=1"
    overload: str = "out"

    def names(self) -> list[str]:
        return [a.split()[-1].split("=")[0] for a in self.arguments]


# The widest dtype class first; a narrower one is guarded in a family with a wider one.
DTYPE_GUARDS = {"all": None, "numeric": "!std::is_same_v<T, bool>",
                "floating": "std::is_floating_point_v<T>"}


@dataclass(frozen=True)
class Family:
    """One family of pointwise kernels: its C++ enum and loops, the operands its formulas
    name, the non-out arguments its out overloads take, and the dtype classes it supports
    (the first is the default)."""

    name: str                        # float_unary: loops pointwise_math::float_unary_*
    enum: str                        # FloatUnaryOp
    operands: tuple[str, ...]        # the formula's variables, in argument order
    arguments: tuple[str, ...]       # the schema's non-out arguments
    dtype_classes: tuple[str, ...]  # `dtypes:` is required when there are several
    vectorizable: bool = False       # accepts `vectorized: True`
    cpu_template: bool = False       # its CPU loop is a template on the operator
    overload: str = "out"            # the out overload's name: eq.Tensor_out
    result: str = "T"                # the formula's type: T (the opmath type) or bool
    # Further signatures the family accepts (binary: without alpha, and pow's).
    other_signatures: tuple[Signature, ...] = ()
    # Scalar arguments the formula sees besides the operands (binary: alpha, 1 for an
    # operator without it); a formula names one exactly when its signature takes it.
    scalars: tuple[str, ...] = ()

    @property
    def signatures(self) -> tuple[Signature, ...]:
        return (Signature(self.arguments, self.overload),) + self.other_signatures

    def guard(self, dtype_class: str) -> str | None:
        """The `if constexpr` condition around a formula of `dtype_class`: none for the
        family's widest class, whose every dtype the switch is compiled for."""
        widest = next(c for c in DTYPE_GUARDS if c in self.dtype_classes)
        return None if dtype_class == widest else DTYPE_GUARDS[dtype_class]

    @property
    def has_numeric_choice(self) -> bool:
        """Whether `numeric` is a narrower class than another of the family's (binary)."""
        return "numeric" in self.dtype_classes and "all" in self.dtype_classes

    @property
    def scalar_params(self) -> str:
        """The formula switch's operands: "T a, T b"."""
        return ", ".join(f"T {v}" for v in self.operands + self.scalars)

    @property
    def fallback(self) -> str:
        """What the switch returns after its cases (never reached)."""
        return self.operands[0] if self.result == "T" else f"{self.result}()"


FAMILIES: dict[str, Family] = {
    "float_unary": Family("float_unary", "FloatUnaryOp", ("x",), ("Tensor self",), ("floating",)),
    "math_binary": Family("math_binary", "MathBinaryOp", ("a", "b"),
                          ("Tensor self", "Tensor other"), ("all", "floating")),
    "unary": Family("unary", "UnaryOp", ("x",), ("Tensor self",), ("numeric", "floating"),
                    vectorizable=True, cpu_template=True),
    # eq ... ge: bool out (or self's dtype in place), computed in the operands' result type.
    "compare": Family("compare", "CompareOp", ("a", "b"), ("Tensor self", "Tensor other"),
                      ("all",), cpu_template=True, overload="Tensor_out", result="bool"),
    # add, sub, mul, div, pow: the operands' result type; add and sub scale b by alpha.
    "binary": Family("binary", "BinaryOp", ("a", "b"), ("Tensor self", "Tensor other", "Scalar alpha=1"),
                     ("all", "numeric", "floating"), cpu_template=True, scalars=("alpha",),
                     other_signatures=(Signature(("Tensor self", "Tensor other")),
                                       Signature(("Tensor self", "Tensor exponent"), "Tensor_Tensor_out"))),
}


def parse_kernel(value: Any, loc: Location, path: str, context: str,
                 errors: ErrorCollector) -> PointwiseKernel:
    """Reads `kernel: {family, formula, dtypes?}`; every mistake is a SchemaError at its line."""
    node = Node(expect_mapping(value, loc, f"'kernel'{context}"), path)
    family_name = node.take("family")
    formula = node.take("formula")
    dtypes = node.take("dtypes")
    vectorized = node.take("vectorized")
    meta = node.take("meta")
    node.report_unknown(errors, "key of 'kernel'", KERNEL_KEYS, context)
    if family_name is None:
        raise SchemaError(loc, f"'kernel'{context} has no 'family'; expected one of "
                               f"{', '.join(FAMILIES)}")
    family_name = expect_string(family_name, node.loc_of("family"), f"'kernel: family'{context}")
    family = FAMILIES.get(family_name)
    if family is None:
        raise SchemaError(node.loc_of("family"),
                          f"unknown kernel family '{family_name}'{context}"
                          + suggestion(family_name, tuple(FAMILIES)))
    if formula is None:
        operands = ", ".join(family.operands)
        raise SchemaError(loc, f"'kernel'{context} has no 'formula': a C++ expression over "
                               f"{operands} (family {family.name})")
    formula = expect_string(formula, node.loc_of("formula"), f"'kernel: formula'{context}")
    if "\n" in formula or ";" in formula:
        raise SchemaError(node.loc_of("formula"),
                          f"'kernel: formula'{context} must be one C++ expression on one line; "
                          "write a longer formula as a function in kernels/pointwise_math.h")
    if dtypes is None and len(family.dtype_classes) > 1:
        raise SchemaError(loc, f"'kernel'{context} has no 'dtypes'; family {family.name} "
                               f"runs in one of: {', '.join(family.dtype_classes)}")
    if dtypes is None:
        dtype_class = family.dtype_classes[0]
    else:
        dtype_class = expect_string(dtypes, node.loc_of("dtypes"), f"'kernel: dtypes'{context}")
        if dtype_class not in family.dtype_classes:
            raise SchemaError(node.loc_of("dtypes"),
                              f"dtype class '{dtype_class}'{context} is not one family "
                              f"{family.name} supports"
                              + suggestion(dtype_class, family.dtype_classes))
    if vectorized is not None:
        vectorized = expect_bool(vectorized, node.loc_of("vectorized"),
                                 f"'kernel: vectorized'{context}")
        if vectorized and not family.vectorizable:
            vectorizable = ", ".join(n for n, f in FAMILIES.items() if f.vectorizable)
            raise SchemaError(node.loc_of("vectorized"),
                              f"'kernel: vectorized'{context}: family {family.name} has no "
                              f"vectorised CPU form; families with one: {vectorizable}")
    if meta is not None:
        meta = expect_string(meta, node.loc_of("meta"), f"'kernel: meta'{context}")
        if meta not in META_KINDS:
            raise SchemaError(node.loc_of("meta"),
                              f"'kernel: meta'{context} is '{meta}'; expected 'family' (the "
                              "family's meta function) or 'custom' (meta::<op>_out written by hand)"
                              + suggestion(meta, META_KINDS))
    return PointwiseKernel(family.name, formula, dtype_class, loc, node.loc_of("formula"),
                           vectorized=bool(vectorized), custom_meta=meta == "custom")


def implied_dispatch(func: FunctionSchema) -> FrozenDict:
    """The dispatch table a `kernel:` entry stands for: sin.out -> sin_out_cpu, sin_out_cuda."""
    name = cpp_types.default_kernel_name(func)
    return FrozenDict({"CPU": f"{name}_cpu", "CUDA": f"{name}_cuda"})


def check_kernel(f: NativeFunction, errors: ErrorCollector) -> None:
    """The rules of a `kernel:` entry that span its other keys (validate.py calls this)."""
    if f.kernel is None:
        return
    where = f.loc_of("kernel")
    name = f.full_name
    if "dispatch" in f.key_locs:
        errors.error(f.loc_of("dispatch"),
                     f"'{name}' has both 'kernel' and 'dispatch'; a 'kernel' entry's CPU and "
                     "CUDA kernels are generated, so remove 'dispatch'")
    if not f.structured or f.kind != SchemaKind.out:
        errors.error(where, f"'kernel' on '{name}', which is not a structured out overload; "
                            "put it on the '.out' overload marked 'structured: True'")
        return
    family = FAMILIES[f.kernel.family]
    signature = entry_signature(f)
    if signature is None:
        expected = " or ".join(f"'{f.func.base_name}{out_signature(s)}'" for s in family.signatures)
        errors.error(where, f"'{name}' does not have the signature of kernel family "
                            f"{family.name}: expected {expected}")
        return
    for scalar in family.scalars:
        named = re.search(rf"\b{scalar}\b", f.kernel.formula) is not None
        taken = scalar in signature.names()
        if named != taken:
            formula_loc = f.kernel.formula_loc or where
            errors.error(formula_loc,
                         f"the formula of '{name}' names '{scalar}', which its signature does not take"
                         if named else
                         f"the formula of '{name}' does not use its argument '{scalar}'; "
                         f"write it into the formula (add's: \"math::add(a, math::mul(alpha, b))\")")


def entry_signature(f: NativeFunction) -> Signature | None:
    """The family signature `f` has, or None."""
    family = FAMILIES[f.kernel.family]
    non_out = tuple(str(a) for a in f.func.non_out_arguments)
    outs = f.func.out_arguments
    if len(outs) != 1 or outs[0].name != "out":
        return None
    return next((s for s in family.signatures
                 if s.arguments == non_out and s.overload == f.func.overload_name), None)


def out_signature(signature: Signature) -> str:
    return f".{signature.overload}({', '.join(signature.arguments)}, *, Tensor(a!) out) -> Tensor(a!)"


def check_families(functions: Sequence[NativeFunction], errors: ErrorCollector) -> None:
    """Within a family, each operator's enum constant is distinct."""
    seen: dict[tuple[str, str], str] = {}
    for f in functions:
        if f.kernel is None:
            continue
        key = (f.kernel.family, enum_constant(f))
        other = seen.setdefault(key, f.full_name)
        if other != f.full_name:
            errors.error(f.loc_of("kernel"), f"'{f.full_name}' and '{other}' both name "
                                             f"{FAMILIES[key[0]].enum}::{key[1]}; rename one")


def enum_constant(f: NativeFunction) -> str:
    """sin.out -> Sin, log1p.out -> Log1p, logical_xor.out -> LogicalXor."""
    return "".join(part[:1].upper() + part[1:] for part in f.func.base_name.split("_"))


@dataclass(frozen=True)
class FamilyOperator:
    """One operator of a family, as the templates see it."""

    name: str          # the operator's base name, "sin" (its name in errors)
    constant: str      # Sin
    formula: str
    dtypes: str
    meta: str          # sin_out: meta::sin_out
    kernel: str        # sin_out: native::sin_out_cpu, native::sin_out_cuda
    line_directive: str  # `#line` of the formula (Note [Formulas keep their line])
    vectorized: bool   # the CPU kernel has the vector path (`vectorized: True`)
    custom_meta: bool  # meta::<op>_out is hand-written (`meta: custom`)
    signature: Signature  # its non-out arguments: self, other (, alpha)
    guard: str | None  # the `if constexpr` condition of its formula (a narrower dtype class)

    @property
    def cpp_params(self) -> str:
        """The kernel's parameters: "const Tensor& self, const Scalar& alpha, const Tensor& out"."""
        return ", ".join(f"const {a.split()[0]}& {n}"
                         for a, n in zip(self.signature.arguments, self.signature.names())) \
            + ", const Tensor& out"

    @property
    def cpp_args(self) -> str:
        return ", ".join(self.signature.names() + ["out"])

    @property
    def meta_params(self) -> str:
        return self.cpp_params.removesuffix(", const Tensor& out")

    @property
    def meta_args(self) -> str:
        return ", ".join(self.signature.names())


@dataclass(frozen=True)
class FamilyGroup:
    family: Family
    operators: tuple[FamilyOperator, ...]

    @property
    def has_dtype_choice(self) -> bool:
        return len(self.family.dtype_classes) > 1

    @property
    def vectorized_operators(self) -> tuple[FamilyOperator, ...]:
        return tuple(op for op in self.operators if op.vectorized)


def family_groups(functions: Sequence[NativeFunction]) -> list[FamilyGroup]:
    """Every family with its operators in schema order; families without one are left out."""
    members: dict[str, list[FamilyOperator]] = {name: [] for name in FAMILIES}
    for f in functions:
        if f.kernel is not None:
            members[f.kernel.family].append(FamilyOperator(
                f.func.base_name, enum_constant(f), f.kernel.formula, f.kernel.dtypes,
                cpp_types.overload_cpp_name(f.func), cpp_types.default_kernel_name(f.func),
                line_directive(f.kernel.formula_loc or f.kernel.loc),
                f.kernel.vectorized, f.kernel.custom_meta, entry_signature(f),
                FAMILIES[f.kernel.family].guard(f.kernel.dtypes)))
    return [FamilyGroup(FAMILIES[name], tuple(ops)) for name, ops in members.items() if ops]

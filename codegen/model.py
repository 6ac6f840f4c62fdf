"""The generator's model: typed, immutable, and carrying the file:line of what it describes.

Everything a template sees comes from here; no template ever sees a raw YAML dict.
Value types (`SchemaType`, `Annotation`) are compared by value; everything that comes
from a place in a schema file carries its `Location` (excluded from equality, so that
two identical declarations compare equal wherever they were written).

The vocabulary lists below (dispatch keys, tags, dtypes, checks) are the Python side's one
source of truth; the C++ side is generated from them or checked against them by a test.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Optional, TypeVar

from codegen.errors import Location

__all__ = [
    "Location", "FrozenDict", "Annotation", "SchemaType", "Argument", "Return",
    "FunctionSchema", "SchemaKind", "DerivativeKind", "Derivative", "Derivatives",
    "SampleInput", "Sample", "Domain", "Tolerance", "ConformanceHints", "NativeFunction",
    "StructuredGroup", "group_structured", "PointwiseKernel",
    "BASE_TYPES", "VARIANTS", "DISPATCH_KEYS", "TAGS", "DEVICE_CHECKS", "DTYPES",
    "CONFORMANCE_CHECKS", "DOMAIN_KINDS",
]

BASE_TYPES = ("Tensor", "int", "SymInt", "float", "bool", "str", "Scalar", "ScalarType",
              "Device", "Layout", "MemoryFormat", "Generator")
VARIANTS = ("function", "method")
DISPATCH_KEYS = ("CPU", "CUDA", "CompositeImplicitAutograd", "CompositeExplicitAutograd")
# Each tag has a reader: pointwise and reduction pick a vmap rule (batching.py), factory
# gives the Python binding `requires_grad=` (python_bindings.py), nondeterministic_seeded
# marks random values for the conformance tests (conformance.py). Views are known from the alias
# annotations, so torchgen's view tags are not needed.
TAGS = ("pointwise", "reduction", "nondeterministic_seeded", "factory")
DEVICE_CHECKS = ("ExactSame", "NoCheck")
DTYPES = ("float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool")
CONFORMANCE_CHECKS = ("registration", "boxed", "variants", "out", "noncontiguous", "dtypes",
                      "reference", "gradcheck", "gradgradcheck", "forward_ad",
                      "fwd_bwd_consistency", "vmap", "cpu_cuda", "errors")
DOMAIN_KINDS = ("positive", "nonzero", "unit")

K = TypeVar("K")
V = TypeVar("V")


class FrozenDict(Mapping[K, V]):
    """An immutable, hashable mapping that keeps insertion order."""

    __slots__ = ("_items",)

    def __init__(self, items: Any = ()):
        object.__setattr__(self, "_items", dict(items))

    def __getitem__(self, key: K) -> V:
        return self._items[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(self._items.items()))

    def __repr__(self) -> str:
        return f"FrozenDict({self._items!r})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("FrozenDict is immutable")


# --- Types -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Annotation:
    """An alias annotation: `(a)` aliases alias set `a`; `(a!)` also writes to it."""

    alias_set: str
    is_write: bool

    def __str__(self) -> str:
        return f"({self.alias_set}{'!' if self.is_write else ''})"


@dataclass(frozen=True)
class SchemaType:
    """A schema type: base [annotation] [? when elements are optional] [[N]] [?].

    `Tensor?` has optional=True; `Tensor?[]` has element_optional=True and is_list=True;
    `int[2]?` has is_list=True, list_size=2 and optional=True.
    """

    base: str
    annotation: Optional[Annotation] = None
    element_optional: bool = False
    is_list: bool = False
    list_size: Optional[int] = None
    optional: bool = False

    def __str__(self) -> str:
        text = self.base + (str(self.annotation) if self.annotation else "")
        if self.element_optional:
            text += "?"
        if self.is_list:
            text += f"[{self.list_size}]" if self.list_size is not None else "[]"
        if self.optional:
            text += "?"
        return text

    @property
    def is_tensor_like(self) -> bool:
        """Tensor, Tensor?, Tensor[] and Tensor?[]: the types autograd differentiates."""
        return self.base == "Tensor"

    @property
    def is_tensor(self) -> bool:
        """Exactly one, possibly optional, Tensor."""
        return self.base == "Tensor" and not self.is_list

    @property
    def is_tensor_list(self) -> bool:
        return self.base == "Tensor" and self.is_list

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write

    def without_annotation(self) -> "SchemaType":
        return SchemaType(self.base, None, self.element_optional, self.is_list,
                          self.list_size, self.optional)


# --- Schema ----------------------------------------------------------------------------


class SchemaKind(str, enum.Enum):
    """What an overload does to its arguments. A str, so templates can compare to 'out'."""

    functional = "functional"  # writes to nothing
    inplace = "inplace"        # name ends with '_' and writes to `Tensor(a!) self`
    out = "out"                # writes to keyword-only `Tensor(a!)` arguments
    mutable = "mutable"        # writes to some other argument

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Argument:
    type: SchemaType
    name: str
    default: Optional[str]  # literal schema text: "1", "None", "[0, 1]", "\"mean\""
    kwarg_only: bool
    loc: Location = field(compare=False, repr=False)

    def __str__(self) -> str:
        default = f"={self.default}" if self.default is not None else ""
        return f"{self.type} {self.name}{default}"

    @property
    def is_out(self) -> bool:
        """A keyword-only argument the overload writes its result into."""
        return self.kwarg_only and self.type.base == "Tensor" and self.type.is_write


@dataclass(frozen=True)
class Return:
    type: SchemaType
    name: Optional[str]
    loc: Location = field(compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.type} {self.name}" if self.name else str(self.type)


@dataclass(frozen=True)
class FunctionSchema:
    """`name.overload(arguments) -> returns`; str() prints the canonical form."""

    base_name: str        # "add_" for add_.Tensor
    overload_name: str    # "" when there is none
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]
    loc: Location = field(compare=False, repr=False)

    def __str__(self) -> str:
        parts: list[str] = []
        for index, argument in enumerate(self.arguments):
            if argument.kwarg_only and (index == 0 or not self.arguments[index - 1].kwarg_only):
                parts.append("*")
            parts.append(str(argument))
        return f"{self.full_name}({', '.join(parts)}) -> {self.returns_text()}"

    def returns_text(self) -> str:
        if len(self.returns) == 1 and self.returns[0].name is None:
            return str(self.returns[0])
        return "(" + ", ".join(str(r) for r in self.returns) + ")"

    @property
    def name(self) -> str:
        return self.base_name

    @property
    def full_name(self) -> str:
        """"add.Tensor", or "relu" when there is no overload name."""
        return f"{self.base_name}.{self.overload_name}" if self.overload_name else self.base_name

    @property
    def is_inplace_name(self) -> bool:
        """"add_" or a dunder in-place name such as "__iadd__"."""
        name = self.base_name
        if name.startswith("__") and name.endswith("__"):
            return name.startswith("__i")
        return name.endswith("_")

    @property
    def root_name(self) -> str:
        """The name without its in-place marker: "add" for add_ and add.out."""
        name = self.base_name
        if not self.is_inplace_name:
            return name
        if name.startswith("__i"):
            return "__" + name[3:]
        return name[:-1]

    @property
    def positional_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if not a.kwarg_only)

    @property
    def kwarg_only_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.kwarg_only)

    @property
    def out_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.is_out)

    @property
    def non_out_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if not a.is_out)

    @property
    def mutable_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.type.is_write)

    @property
    def self_argument(self) -> Optional[Argument]:
        return self.argument("self")

    def argument(self, name: str) -> Optional[Argument]:
        return next((a for a in self.arguments if a.name == name), None)

    @property
    def argument_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.arguments)

    @property
    def output_names(self) -> tuple[str, ...]:
        """Names a forward-mode formula may be keyed by: result (one return) or resultN,
        and the returns' own names."""
        names = ["result"] if len(self.returns) == 1 else []
        names += [f"result{i}" for i in range(len(self.returns))]
        names += [r.name for r in self.returns if r.name]
        return tuple(dict.fromkeys(names))

    @property
    def kind(self) -> SchemaKind:
        if self.out_arguments:
            return SchemaKind.out
        self_argument = self.self_argument
        if self.is_inplace_name and self_argument is not None and self_argument.type.is_write:
            return SchemaKind.inplace
        if self.mutable_arguments:
            return SchemaKind.mutable
        return SchemaKind.functional

    def signature_key(self) -> tuple[tuple[str, str, Optional[str]], ...]:
        """The non-out arguments as (name, type without annotation, default): equal for the
        functional, in-place and out overloads of one operator."""
        return tuple((a.name, str(a.type.without_annotation()), a.default)
                     for a in self.non_out_arguments)


# --- Derivatives -----------------------------------------------------------------------


class DerivativeKind(str, enum.Enum):
    formula = "formula"                        # a C++ expression
    non_differentiable = "non_differentiable"  # gradient is never needed
    not_implemented = "not_implemented"        # raises at backward time, with a reason
    # Forward mode only (see docs/transforms.md):
    auto_element_wise = "auto_element_wise"    # tangent: the backward formulas with grad := X_t
    auto_linear = "auto_linear"                # tangent: the op itself applied to the tangents

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Derivative:
    """One formula. For backward mode `names` are inputs (several when one formula serves
    `self, other`); for forward mode they are outputs (`result`, `result0`, a return name)."""

    names: tuple[str, ...]
    kind: DerivativeKind
    formula: str            # the C++ expression; "" unless kind is formula
    reason: Optional[str]   # for not_implemented("reason")
    loc: Location = field(compare=False, repr=False)
    # Where the formula's text starts (the key's line unless it is a block scalar): the
    # generated code cites it in a `#line` directive (see Note [Formulas keep their line]).
    formula_loc: Optional[Location] = field(default=None, compare=False, repr=False)

    @property
    def source_loc(self) -> Location:
        return self.formula_loc or self.loc


@dataclass(frozen=True)
class Derivatives:
    backward: tuple[Derivative, ...]
    forward: tuple[Derivative, ...]
    output_differentiability: Optional[tuple[bool, ...]]
    loc: Location = field(compare=False, repr=False)
    # `forward: not_implemented("reason")`: the overload has no tangent rule, on purpose.
    forward_not_implemented: Optional[str] = None

    def backward_for(self, name: str) -> Optional[Derivative]:
        return next((d for d in self.backward if name in d.names), None)

    def forward_for(self, name: str) -> Optional[Derivative]:
        return next((d for d in self.forward if name in d.names), None)


# --- Conformance hints -----------------------------------------------------------------


@dataclass(frozen=True)
class SampleInput:
    """One argument of a sample. kind "tensor": `shape` is set ([] is a 0-dim tensor);
    "tensor_list": `shapes` is set; "value": `value` is the literal (a tuple for lists,
    None for an optional argument left empty). A tensor may fix its own `dtype` (an int64
    target, a bool mask: it then keeps that dtype whatever dtype the test runs in) and its
    `domain` (for an integral dtype an interval means the integers low <= v < high)."""

    name: str
    kind: str
    shape: Optional[tuple[int, ...]] = None
    shapes: Optional[tuple[tuple[int, ...], ...]] = None
    value: Any = None
    dtype: Optional[str] = None
    domain: Optional["Domain"] = None


@dataclass(frozen=True)
class Sample:
    inputs: FrozenDict  # argument name -> SampleInput, in schema order
    loc: Location = field(compare=False, repr=False)


@dataclass(frozen=True)
class Domain:
    """Where sampled values of one argument must lie. kind "interval": low < high."""

    kind: str  # positive | nonzero | unit | interval
    low: Optional[float] = None
    high: Optional[float] = None


@dataclass(frozen=True)
class Tolerance:
    atol: Optional[float]
    rtol: Optional[float]


@dataclass(frozen=True)
class ConformanceHints:
    reference: Optional[str]     # scalar C++ expression over the argument names
    samples: tuple[Sample, ...]
    domain: FrozenDict           # argument name -> Domain
    dtypes: Optional[tuple[str, ...]]  # None: every dtype the kernels' dispatch accepts
    input_dtypes: FrozenDict     # argument name -> dtype it keeps whatever dtype is tested
    grad_inputs: Optional[tuple[str, ...]]  # the inputs gradcheck differentiates (composites)
    tolerance: FrozenDict        # dtype -> Tolerance
    compare: str                 # "values", or "metadata" for uninitialized results
    skip: FrozenDict             # check name -> reason
    loc: Location = field(compare=False, repr=False)


# --- Kernels declared in the schema ---------------------------------------------------


@dataclass(frozen=True)
class PointwiseKernel:
    """`kernel: {family: ..., formula: ..., dtypes: ...}` on a structured out overload: its
    CPU and CUDA kernels are one case of a family's loops (codegen/kernel_families.py)."""

    family: str       # a key of kernel_families.FAMILIES
    formula: str      # a C++ expression over the family's operands (x; or a, b)
    dtypes: str       # a dtype class of the family (floating, numeric, all)
    loc: Location = field(compare=False, repr=False)
    formula_loc: Optional[Location] = field(default=None, compare=False, repr=False)
    vectorized: bool = False   # the CPU kernel also runs the formula on cpu::Vectorized
    custom_meta: bool = False  # `meta: custom`: the meta function is hand-written


# --- Entries ---------------------------------------------------------------------------


@dataclass(frozen=True)
class NativeFunction:
    """One schema entry. `dispatch` maps each (expanded) dispatch key to a kernel name; an
    entry with neither `dispatch` nor `structured_delegate` gets CompositeImplicitAutograd,
    as in native_functions.yaml (then `dispatch_defaulted` is True)."""

    func: FunctionSchema
    variants: tuple[str, ...]
    dispatch: FrozenDict                 # dispatch key -> kernel name
    dispatch_defaulted: bool
    structured: bool
    structured_delegate: Optional[str]   # full name of an out overload
    tags: tuple[str, ...]
    device_check: str
    device_guard: bool
    derivatives: Optional[Derivatives]
    conformance: Optional[ConformanceHints]
    loc: Location = field(compare=False, repr=False)
    key_locs: FrozenDict = field(default_factory=FrozenDict, compare=False, repr=False)
    batching: Optional[str] = None       # ours: the vmap batching rule (codegen/batching.py)
    kernel: Optional[PointwiseKernel] = None  # ours: a kernel declared in the schema
    scalar_overload_of: Optional[str] = None  # ours: the Tensor twin of a Scalar overload

    @property
    def full_name(self) -> str:
        return self.func.full_name

    @property
    def kind(self) -> SchemaKind:
        return self.func.kind

    def loc_of(self, key: str) -> Location:
        """The line of `key` in this entry, or of the entry when the key is absent."""
        return self.key_locs.get(key, self.loc)

    @property
    def has_function_variant(self) -> bool:
        return "function" in self.variants

    @property
    def has_method_variant(self) -> bool:
        return "method" in self.variants


@dataclass(frozen=True)
class StructuredGroup:
    """A structured out overload and the functional and in-place overloads whose
    `structured_delegate` names it; all three are served by the out overload's kernel."""

    out: NativeFunction
    functional: Optional[NativeFunction]
    inplace: Optional[NativeFunction]

    @property
    def root_name(self) -> str:
        return self.out.func.root_name

    @property
    def functions(self) -> tuple[NativeFunction, ...]:
        return tuple(f for f in (self.functional, self.inplace, self.out) if f is not None)


def group_structured(functions: tuple[NativeFunction, ...]) -> tuple[StructuredGroup, ...]:
    """One group per structured out overload, in declaration order. Assumes a validated
    model: at most one functional and one in-place overload delegate to each."""
    delegates: dict[str, list[NativeFunction]] = {}
    for f in functions:
        if f.structured_delegate:
            delegates.setdefault(f.structured_delegate, []).append(f)
    groups = []
    for out in functions:
        if not out.structured:
            continue
        members = delegates.get(out.full_name, [])
        functional = next((f for f in members if f.kind == SchemaKind.functional), None)
        inplace = next((f for f in members if f.kind == SchemaKind.inplace), None)
        groups.append(StructuredGroup(out, functional, inplace))
    return tuple(groups)

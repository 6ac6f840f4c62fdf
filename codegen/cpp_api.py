"""The C++ API each operator gets, worked out once so that templates stay thin.

For every NativeFunction this module derives:
  - the dispatcher-level signature (cpp_types), used by Operators.h, the kernels'
    declarations and the registrations;
  - the public API: `tg::add(...)` (Functions.h) and `t.add(...)` (TensorMethods.h), with
    LibTorch's conventions: out arguments first in `add_out(out, ...)`, in-place and out
    functions returning references to the tensors they wrote, and a `TensorOptions`
    overload for the dtype/layout/device/pin_memory quartet of factories;
  - the wrappers each dispatch key registers (Register<Key>.cpp).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from codegen import cpp_types
from codegen.model import Argument, FunctionSchema, NativeFunction, SchemaKind, StructuredGroup
from codegen.registry import Registry

NAMESPACE = "tg"
TENSOR_OPTIONS_QUARTET = ("dtype", "layout", "device", "pin_memory")
BACKEND_KEYS = ("CPU", "CUDA")
COMPOSITE_KEYS = ("CompositeExplicitAutograd", "CompositeImplicitAutograd")


@dataclass(frozen=True)
class Param:
    """One C++ parameter: `type name [= default]`."""

    type: str
    name: str
    default: Optional[str] = None

    def decl(self) -> str:
        return f"{self.type} {self.name}"

    def decl_with_default(self) -> str:
        return self.decl() + (f" = {self.default}" if self.default is not None else "")


def _params(arguments, public: bool) -> list[Param]:
    """Parameters for `arguments`. In the public API mutable tensors are `Tensor&`."""
    params = []
    for a in arguments:
        cpp = cpp_types.argument_type(a.type)
        if public and a.type.is_write and a.type.is_tensor and not a.type.optional:
            cpp = "Tensor&"
        default = cpp_types.default_value(a.type, a.default) if a.default is not None else None
        params.append(Param(cpp, a.name, default))
    return params


def _declarations(params: list[Param], with_defaults: bool) -> str:
    """Only the trailing run of defaulted parameters keeps its defaults, as C++ requires."""
    first_default = len(params)
    while first_default > 0 and params[first_default - 1].default is not None:
        first_default -= 1
    return ", ".join(p.decl_with_default() if with_defaults and i >= first_default else p.decl()
                     for i, p in enumerate(params))


@dataclass(frozen=True)
class PublicOverload:
    """One C++ overload of the public API (a free function or a method)."""

    name: str
    returns: str
    params: str              # declarations, with defaults where C++ allows
    params_no_defaults: str  # for out-of-class definitions
    call_args: str           # the dispatcher call's arguments, in schema order
    body_return: str         # what the body returns after the call (`result` or an alias)
    options_from: bool       # whether `options` must be unpacked (TensorOptions overload)


@dataclass(frozen=True)
class Operator:
    """Everything the templates need to know about one overload."""

    f: NativeFunction
    cpp_name: str            # "add_Tensor": the ops:: struct and wrapper suffix
    schema: str              # the canonical schema string, without namespace
    schema_literal: str      # the same as a C++ string literal
    returns: str             # dispatcher return type
    params: str              # dispatcher parameter declarations
    arg_names: str           # "self, other, alpha"
    signature_type: str      # "Tensor(const Tensor&, const Tensor&, const Scalar&)"
    tensor_arg_pointers: str  # "&self, &other" for device checks
    functions: tuple[PublicOverload, ...]
    methods: tuple[PublicOverload, ...]
    has_backend_select: bool

    @property
    def name(self) -> str:
        return self.f.func.base_name

    @property
    def public_name(self) -> str:
        return public_function_name(self.f.func)

    @property
    def overload(self) -> str:
        return self.f.func.overload_name


def _alias_returns(func: FunctionSchema) -> list[Optional[str]]:
    """For each return, the name of the argument it aliases by write annotation, if any."""
    names = []
    for r in func.returns:
        match = None
        if r.type.annotation is not None and r.type.annotation.is_write:
            match = next((a.name for a in func.arguments
                          if a.type.annotation == r.type.annotation), None)
        names.append(match)
    return names


def cpp_string_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def public_function_name(func: FunctionSchema) -> str:
    """LibTorch's name: `add`, `add_`, and `add_out` for out overloads."""
    if func.kind == SchemaKind.out and not func.base_name.endswith("_out"):
        return func.base_name + "_out"
    return func.base_name


def _public_returns(func: FunctionSchema, aliases: list[Optional[str]], const_self: bool) -> tuple[str, str]:
    """(return type, return expression) of a public wrapper around the dispatcher call."""
    if func.returns and all(aliases):
        if len(aliases) == 1:
            if const_self and aliases[0] == "self":
                return "const Tensor&", "*this"
            return "Tensor&", aliases[0]
        refs = ", ".join("Tensor&" for _ in aliases)
        return f"std::tuple<{refs}>", "std::forward_as_tuple(" + ", ".join(aliases) + ")"
    return cpp_types.returns_type(func.returns), "result"


def _has_quartet(func: FunctionSchema) -> bool:
    names = [a.name for a in func.arguments]
    return all(n in names for n in TENSOR_OPTIONS_QUARTET)


def _overloads(f: NativeFunction, method: bool) -> list[PublicOverload]:
    func = f.func
    aliases = _alias_returns(func)
    arguments = list(func.arguments)
    if method:
        arguments = [a for a in arguments if a.name != "self"]
    elif func.kind == SchemaKind.out:
        # LibTorch's `add_out(out, self, other)`: outputs first.
        arguments = list(func.out_arguments) + [a for a in arguments if not a.is_out]
    name = func.base_name if method else public_function_name(func)
    returns, body_return = _public_returns(func, aliases, const_self=method)
    if method and body_return == "result" and aliases and aliases[0] == "self":
        body_return = "*this"
    call_args = ", ".join("*this" if method and a.name == "self" else a.name for a in func.arguments)
    params = _params(arguments, public=True)
    overloads = [PublicOverload(name, returns, _declarations(params, True),
                                _declarations(params, False), call_args, body_return, False)]
    if _has_quartet(func):
        # The TensorOptions form replaces the quartet where it stood; the unpacked form stays,
        # without defaults, so that the two never compete for the same call.
        first = next(i for i, a in enumerate(arguments) if a.name == TENSOR_OPTIONS_QUARTET[0])
        packed = [p for p in params if p.name not in TENSOR_OPTIONS_QUARTET]
        packed.insert(first, Param("TensorOptions", "options", "{}"))
        overloads = [
            PublicOverload(name, returns, _declarations(packed, True), _declarations(packed, False),
                           call_args, body_return, True),
            PublicOverload(name, returns, _declarations(params, False), _declarations(params, False),
                           call_args, body_return, False),
        ]
    return overloads


def operator_of(f: NativeFunction) -> Operator:
    func = f.func
    cpp_arguments = cpp_types.arguments(func)
    pointers = _pointers(func.arguments)
    has_tensor_input = any(a.type.base == "Tensor" for a in func.arguments)
    return Operator(
        f=f,
        cpp_name=cpp_types.overload_cpp_name(func),
        schema=str(func),
        schema_literal=cpp_string_literal(str(func)),
        returns=cpp_types.returns_type(func.returns),
        params=", ".join(a.declaration() for a in cpp_arguments),
        arg_names=", ".join(a.name for a in cpp_arguments),
        signature_type=f"{cpp_types.returns_type(func.returns)}(" + ", ".join(a.type for a in cpp_arguments) + ")",
        tensor_arg_pointers=pointers,
        functions=tuple(_overloads(f, method=False)) if f.has_function_variant else (),
        methods=tuple(_overloads(f, method=True)) if f.has_method_variant else (),
        has_backend_select=not has_tensor_input and func.argument("device") is not None,
    )


# --- Kernels and wrappers ----------------------------------------------------------------


@dataclass(frozen=True)
class KernelDecl:
    """A hand-written function the generated code calls: declared in NativeFunctions.h."""

    namespace: str   # "native" or "meta"
    returns: str
    name: str
    params: str


@dataclass(frozen=True)
class Wrapper:
    """One registration on one dispatch key: the wrapper function and what it calls."""

    op: Operator
    key: str
    kind: str                       # plain | structured_functional | structured_inplace | structured_out
    kernel: str                     # native:: function called
    meta: Optional[str] = None      # meta:: function (structured)
    out_names: tuple[str, ...] = ()  # structured: the out arguments of the out overload
    meta_args: str = ""             # structured: arguments for meta and kernel, outs excluded
    device_check: bool = True
    # "&self, &other": the tensors whose device a backend wrapper makes current (every tensor
    # argument, outputs included); empty when the schema says device_guard: False or the
    # operator has no tensor argument (a factory's kernel guards its `device` itself).
    guard_pointers: str = ""
    input_pointers: str = ""        # "&self, &other": the non-out tensors, for the output device
    num_input_pointers: int = 0     # how many tensors input_pointers lists
    written: tuple[str, ...] = ()   # tensors the kernel writes: their version counters are bumped
    written_lists: tuple[str, ...] = ()  # Tensor(a!)[] arguments: every element is bumped
    # "&self, &index": the tensors the kernel only reads, checked against the written ones for
    # partial overlap (See Note [Memory overlap] in runtime/ops/overlap.h).
    read_pointers: str = ""

    @property
    def bumps_versions(self) -> bool:
        """Backends bump the version of each tensor they write, so that autograd notices
        in-place changes of saved tensors; composites leave it to the operators they call."""
        return self.key in BACKEND_KEYS and bool(self.written or self.written_lists)

    @property
    def checks_overlap(self) -> bool:
        """Backends check what they write for memory overlap, once, before the kernel runs;
        composites leave it to the operators they call, as with versions."""
        return self.bumps_versions

    @property
    def scans_output_device(self) -> bool:
        """Whether the device check also gives the outputs' device (one scan, not two: see
        runtime/ops/device_check.h): structured functional and out wrappers with inputs."""
        return (self.device_check and self.kind in ("structured_functional", "structured_out")
                and bool(self.input_pointers))

    @property
    def written_pointers(self) -> str:
        return ", ".join(f"&{name}" for name in self.written)

    @property
    def wrapper_name(self) -> str:
        return f"wrapper_{self.key}_{self.op.cpp_name}"


def meta_name(group: StructuredGroup) -> str:
    return cpp_types.overload_cpp_name(group.out.func)


def _meta_returns(out_func: FunctionSchema) -> str:
    n = len(out_func.out_arguments)
    return "TensorMeta" if n == 1 else f"std::array<TensorMeta, {n}>"


def kernel_declarations(registry: Registry) -> list[KernelDecl]:
    """Every hand-written kernel and meta function, once each, in declaration order."""
    seen: set[tuple[str, str]] = set()
    decls: list[KernelDecl] = []

    def add(decl: KernelDecl) -> None:
        key = (decl.namespace, decl.name + "(" + decl.params + ")")
        if key not in seen:
            seen.add(key)
            decls.append(decl)

    for f in registry.functions:
        if f.structured_delegate:
            continue
        op = operator_of(f)
        for key, kernel in f.dispatch.items():
            returns = "void" if f.structured else op.returns
            add(KernelDecl("native", returns, kernel, op.params))
    for group in registry.structured_groups:
        non_out = [a for a in cpp_types.arguments(group.out.func)
                   if not group.out.func.argument(a.name).is_out]
        add(KernelDecl("meta", _meta_returns(group.out.func), meta_name(group),
                       ", ".join(a.declaration() for a in non_out)))
    return decls


def _pointers(arguments) -> str:
    return ", ".join(f"{a.name} ? &*{a.name} : nullptr" if a.type.optional else f"&{a.name}"
                     for a in arguments if a.type.is_tensor)


def wrappers_for_key(registry: Registry, key: str, functions=None) -> list[Wrapper]:
    """The registrations of `key` (a backend or composite key) among `functions` (all when
    None), in declaration order."""
    groups_by_out = {g.out.full_name: g for g in registry.structured_groups}
    wrappers: list[Wrapper] = []
    for f in (registry.functions if functions is None else functions):
        op = operator_of(f)
        check = f.device_check != "NoCheck" and key != "CompositeImplicitAutograd"
        guard = op.tensor_arg_pointers if f.device_guard and key in BACKEND_KEYS else ""
        if f.structured or f.structured_delegate:
            group = groups_by_out[f.full_name if f.structured else f.structured_delegate]
            kernel = group.out.dispatch.get(key)
            if kernel is None:
                continue
            out_func = group.out.func
            kind = {SchemaKind.out: "structured_out", SchemaKind.inplace: "structured_inplace"}.get(
                f.kind, "structured_functional")
            wrappers.append(Wrapper(
                op=op, key=key, kind=kind, kernel=kernel, meta=meta_name(group),
                out_names=tuple(a.name for a in out_func.out_arguments),
                meta_args=", ".join(a.name for a in out_func.arguments if not a.is_out),
                device_check=check,
                guard_pointers=guard,
                input_pointers=_pointers(a for a in f.func.arguments if not a.is_out),
                num_input_pointers=sum(1 for a in f.func.arguments if not a.is_out and a.type.is_tensor),
                written=tuple(a.name for a in f.func.arguments if a.type.is_write),
                read_pointers=_pointers(a for a in f.func.arguments if not a.type.is_write)))
        elif key in f.dispatch:
            wrappers.append(Wrapper(op=op, key=key, kind="plain", kernel=f.dispatch[key], device_check=check,
                                    guard_pointers=guard,
                                    written=tuple(a.name for a in f.func.arguments
                                                  if a.type.is_write and a.type.is_tensor),
                                    written_lists=tuple(a.name for a in f.func.arguments
                                                        if a.type.is_write and a.type.is_tensor_list),
                                    read_pointers=_pointers(a for a in f.func.arguments
                                                            if not a.type.is_write)))
    return wrappers


def operators(functions) -> list[Operator]:
    return [operator_of(f) for f in functions]


def backend_select_operators(functions) -> list[Operator]:
    """Factories: no tensor input, a `device` argument that picks the backend."""
    return [op for op in operators(functions) if op.has_backend_select]

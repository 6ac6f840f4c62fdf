"""The C++ type mapping of the dispatcher-level signature: the one place it is written down.

A schema type maps to one argument type and, where it may be returned, one return type;
a type with no entry below is rejected by validation (UnsupportedType), so a template never
meets a type it cannot spell. Defaults translate from schema literals to C++ expressions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

from codegen.model import FunctionSchema, Return, SchemaKind, SchemaType

CPP_KEYWORDS = frozenset("""
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast
    continue co_await co_return co_yield decltype default delete do double dynamic_cast else
    enum explicit export extern false float for friend goto if inline int long mutable
    namespace new noexcept not not_eq nullptr operator or or_eq private protected public
    register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid
    typename union unsigned using virtual void volatile wchar_t while xor xor_eq
""".split())


class UnsupportedType(Exception):
    """A schema type with no C++ mapping in the position it is used."""


class BadDefault(Exception):
    """A default literal that does not fit its argument's type."""


def _form(t: SchemaType) -> str:
    """The type's shape with the base and annotation removed: "", "?", "[]", "[N]", "[]?",
    "[N]?", "?[]"."""
    if not t.is_list:
        return "?" if t.optional else ""
    return (("?" if t.element_optional else "") + ("[N]" if t.list_size else "[]")
            + ("?" if t.optional else ""))


_ARGUMENT_TYPES = {
    ("Tensor", ""): "const Tensor&",
    ("Tensor", "?"): "const std::optional<Tensor>&",
    ("Tensor", "[]"): "TensorList",
    ("Tensor", "?[]"): "const std::vector<std::optional<Tensor>>&",
    ("float", ""): "double",
    ("float", "?"): "std::optional<double>",
    ("float", "[]"): "ArrayRef<double>",
    ("bool", ""): "bool",
    ("bool", "?"): "std::optional<bool>",
    ("bool", "[N]"): "std::array<bool, {N}>",
    ("str", ""): "std::string_view",
    ("str", "?"): "std::optional<std::string_view>",
    ("Scalar", ""): "const Scalar&",
    ("Scalar", "?"): "const std::optional<Scalar>&",
    ("Generator", "?"): "std::optional<Generator>",
}
for _integer in ("int", "SymInt"):
    _ARGUMENT_TYPES.update({
        (_integer, ""): "int64_t",
        (_integer, "?"): "std::optional<int64_t>",
        (_integer, "[]"): "IntArrayRef",
        (_integer, "[N]"): "IntArrayRef",
        (_integer, "[]?"): "OptionalIntArrayRef",
        (_integer, "[N]?"): "OptionalIntArrayRef",
    })
for _enum in ("ScalarType", "Device", "Layout", "MemoryFormat"):
    _ARGUMENT_TYPES.update({(_enum, ""): _enum, (_enum, "?"): f"std::optional<{_enum}>"})

_RETURN_TYPES = {
    ("Tensor", ""): "Tensor",
    ("Tensor", "[]"): "std::vector<Tensor>",
    ("int", ""): "int64_t",
    ("SymInt", ""): "int64_t",
    ("int", "[]"): "std::vector<int64_t>",
    ("SymInt", "[]"): "std::vector<int64_t>",
    ("float", ""): "double",
    ("bool", ""): "bool",
    ("str", ""): "std::string",
    ("Scalar", ""): "Scalar",
    ("ScalarType", ""): "ScalarType",
}


def argument_type(t: SchemaType) -> str:
    """`int[2]` -> "IntArrayRef"; raises UnsupportedType."""
    cpp = _ARGUMENT_TYPES.get((t.base, _form(t)))
    if cpp is None:
        raise UnsupportedType(f"type '{t}' has no C++ argument type")
    return cpp.replace("{N}", str(t.list_size))


def return_type(t: SchemaType) -> str:
    cpp = _RETURN_TYPES.get((t.base, _form(t)))
    if cpp is None:
        raise UnsupportedType(f"type '{t}' cannot be returned")
    return cpp


def returns_type(returns: Sequence[Return]) -> str:
    """`()` -> void; one return -> its type; several -> std::tuple<...>."""
    if not returns:
        return "void"
    if len(returns) == 1:
        return return_type(returns[0].type)
    return "std::tuple<" + ", ".join(return_type(r.type) for r in returns) + ">"


# --- Defaults --------------------------------------------------------------------------

_INTEGER = re.compile(r"-?\d+\Z")
_NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?\Z")
_INFINITY = {"inf": "std::numeric_limits<double>::infinity()",
             "-inf": "-std::numeric_limits<double>::infinity()"}
_LIST_ITEM = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^,\s]+""")
_SCALAR_TYPES = {
    "byte": "Byte", "char": "Char", "short": "Short", "int": "Int", "long": "Long",
    "half": "Half", "float": "Float", "double": "Double", "bool": "Bool",
    "bfloat16": "BFloat16", "uint8": "Byte", "int8": "Char", "int16": "Short",
    "int32": "Int", "int64": "Long", "float16": "Half", "float32": "Float",
    "float64": "Double",
}
_ENUM_DEFAULTS = {
    "MemoryFormat": {"contiguous_format": "MemoryFormat::Contiguous",
                     "preserve_format": "MemoryFormat::Preserve"},
    "Layout": {"strided": "Layout::Strided"},
    "ScalarType": {name: f"ScalarType::{cpp}" for name, cpp in _SCALAR_TYPES.items()},
    # A loss's `int reduction=Mean` (runtime/core/reduction.h), as in native_functions.yaml.
    "int": {"Mean": "Reduction::Mean", "Sum": "Reduction::Sum"},
}
_BOOLS = {"True": "true", "False": "false"}


def _string_literal(text: str) -> Optional[str]:
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text
    if len(text) >= 2 and text[0] == text[-1] == "'":
        inner = text[1:-1].replace("\\'", "'").replace('"', '\\"')
        return f'"{inner}"'
    return None


def _element(base: str, text: str) -> str:
    """One non-list default value of type `base` as C++."""
    if base == "bool" and text in _BOOLS:
        return _BOOLS[text]
    if base in ("int", "SymInt") and _INTEGER.match(text):
        return text
    if base in ("float", "Scalar"):
        if _NUMBER.match(text):
            return text
        if text in _INFINITY:
            return _INFINITY[text]
        if base == "Scalar" and text in _BOOLS:
            return _BOOLS[text]
    if base == "str" and _string_literal(text):
        return _string_literal(text)
    if text in _ENUM_DEFAULTS.get(base, {}):
        return _ENUM_DEFAULTS[base][text]
    expected = {
        "bool": "True or False", "int": "an integer", "SymInt": "an integer",
        "float": "a number", "Scalar": "a number or a bool", "str": "a quoted string",
        "ScalarType": "a dtype name such as long or float",
        "MemoryFormat": "contiguous_format or preserve_format", "Layout": "strided",
    }.get(base, "None")
    raise BadDefault(f"expected {expected}")


def default_value(t: SchemaType, text: str) -> str:
    """The C++ expression for a schema default: None -> std::nullopt, False -> false,
    [] -> {}, [0, 1] -> {0, 1}, "mean" -> "mean", long -> ScalarType::Long,
    contiguous_format -> MemoryFormat::Contiguous, numbers verbatim. A single value for a
    list fills every element, as PyTorch's `int[2] stride=1` means [1, 1]."""
    if text == "None":
        if t.optional:
            return "std::nullopt"
        raise BadDefault(f"None needs an optional type ('{t}?')")
    if not t.is_list:
        if text.startswith("["):
            raise BadDefault("a list is not a default for a single value")
        return _element(t.base, text)
    if text.startswith("["):
        items = _LIST_ITEM.findall(text[1:-1])
        return "{" + ", ".join(_element(t.base, item) for item in items) + "}"
    value = _element(t.base, text)
    return "{" + ", ".join([value] * (t.list_size or 1)) + "}"


# --- Names and signatures --------------------------------------------------------------


# Operator names that, as the name of a generated type (ops::std), would hide a namespace
# the generated code qualifies names with (std::optional): the type gets OP_SUFFIX.
NAMESPACE_NAMES = frozenset({"std", "tg"})
OP_SUFFIX = "_op"


def overload_cpp_name(func: FunctionSchema) -> str:
    """A C++ and Python identifier per overload: add_Tensor, add_out, add__Tensor, relu
    (std_op for std, whose ops::std would hide namespace std)."""
    if not func.overload_name:
        return func.base_name + (OP_SUFFIX if func.base_name in NAMESPACE_NAMES else "")
    return f"{func.base_name}_{func.overload_name}"


def default_kernel_name(func: FunctionSchema) -> str:
    """The kernel an entry without `dispatch` names, as torchgen does: add, add_, add_out."""
    if func.kind == SchemaKind.out and not func.base_name.endswith("_out"):
        return f"{func.base_name}_out"
    return func.base_name


@dataclass(frozen=True)
class CppArgument:
    type: str
    name: str
    default: Optional[str]  # the C++ expression, or None

    def declaration(self, with_default: bool = False) -> str:
        if with_default and self.default is not None:
            return f"{self.type} {self.name} = {self.default}"
        return f"{self.type} {self.name}"


def arguments(func: FunctionSchema) -> tuple[CppArgument, ...]:
    """The dispatcher-level arguments, in schema order (out arguments last)."""
    return tuple(CppArgument(argument_type(a.type), a.name,
                             default_value(a.type, a.default) if a.default is not None else None)
                 for a in func.arguments)


def signature(func: FunctionSchema, name: str, with_defaults: bool = False) -> str:
    """"Tensor add_Tensor(const Tensor& self, const Tensor& other, const Scalar& alpha)".
    With defaults, only the trailing run of defaulted arguments gets them, as C++ requires
    (add.out's `alpha=1` is followed by `out`, so it gets none)."""
    cpp_arguments = arguments(func)
    first_default = len(cpp_arguments)
    while first_default > 0 and cpp_arguments[first_default - 1].default is not None:
        first_default -= 1
    declarations = ", ".join(a.declaration(with_defaults and index >= first_default)
                             for index, a in enumerate(cpp_arguments))
    return f"{returns_type(func.returns)} {name}({declarations})"

"""The Python package's generated parts: the signature table and the `.pyi` stubs.

    python3 codegen/python_bindings.py --schemas FILE... --templates DIR --out-dir DIR

From the same validated model as the C++ glue, this emits two files:

  - `python_signatures.cpp`: one row per overload and variant, (Python name, schema text,
    function or method, factory). The extension parses every row once at import
    (python/src/signature_table.cpp) and binds one Python callable per name; there is no
    per-operator C++ (see docs/python.md, "How a call is bound").
  - `_C.pyi`: the stubs of the extension: the Tensor class with one method per method
    variant and one function per function variant, `@overload`ed per schema overload.

Overloads are grouped under their schema name (`add.Tensor`, `add.Scalar` and `add.out`
are all `add`; `add_` is its own name), as PyTorch's Python bindings group them.
"""

from __future__ import annotations

import argparse
import keyword
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

if __package__ in (None, ""):  # run as a script: make `codegen` importable from any cwd
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from codegen.errors import SchemaErrors  # noqa: E402
from codegen.model import DTYPES, Argument, FunctionSchema, NativeFunction, SchemaType  # noqa: E402
from codegen.registry import Registry, load_registry  # noqa: E402
from codegen.writer import make_environment, write_if_changed  # noqa: E402

OUTPUTS = ("python_signatures.cpp", "_C.pyi")

# Schema element type -> the Python type a stub names. Scalar takes bool, int and float
# (Python's numeric tower); Device also takes its text ("cuda:0").
# Builtins are spelled `_b.int`: the stub module defines `int` and `float` (dtypes) and
# `slice`, `max`, `all` (operators), which would shadow them.
_PY_TYPES = {
    "Tensor": "Tensor", "int": "_b.int", "SymInt": "_b.int", "float": "_b.float", "bool": "_b.bool",
    "str": "_b.str", "Scalar": "Number", "ScalarType": "_dtype", "Device": "DeviceLike",
    "Layout": "_b.int", "MemoryFormat": "_b.int", "Generator": "_b.object",
}
# The dtype objects the extension defines (python/src/python_types.cpp), and PyTorch's
# other spellings of them.
DTYPE_NAMES = DTYPES + ("float", "double", "half", "long", "int", "short")

# Keyword arguments PyTorch's factories take beyond their schema (the TensorOptions
# the extension applies after the call).
FACTORY_EXTRA_KWARGS = ("requires_grad",)


def py_type(t: SchemaType) -> str:
    element = _PY_TYPES[t.base]
    if t.element_optional:
        element = f"Optional[{element}]"
    if t.is_list:
        # int[N] also takes one int, which the runtime repeats N times.
        element = (f"Union[{element}, Sequence[{element}]]" if t.base in ("int", "SymInt")
                   else f"Sequence[{element}]")
    return f"Optional[{element}]" if t.optional else element


def python_argument_name(name: str) -> str:
    """A schema argument named by a Python keyword (`float from=0`) is spelled `from_` in
    Python, as in PyTorch; the runtime parser accepts that spelling."""
    return name + "_" if keyword.iskeyword(name) else name


def py_return_type(func: FunctionSchema) -> str:
    def one(t: SchemaType) -> str:
        if t.is_list:
            return f"list[{_PY_TYPES[t.base]}]"
        return _PY_TYPES[t.base] if not t.optional else f"Optional[{_PY_TYPES[t.base]}]"
    if not func.returns:
        return "None"
    if len(func.returns) == 1:
        return one(func.returns[0].type)
    return "tuple[" + ", ".join(one(r.type) for r in func.returns) + "]"


@dataclass(frozen=True)
class StubOverload:
    """One `def` line of a stub: its parameters (after self for a method) and return."""

    params: str
    returns: str


@dataclass(frozen=True)
class SignatureRow:
    python_name: str
    schema: str
    method: bool
    factory: bool

    @property
    def cpp_schema(self) -> str:
        return '"' + self.schema.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _is_factory(f: NativeFunction) -> bool:
    return "factory" in f.tags


def _stub_params(f: NativeFunction, method: bool) -> list[StubOverload]:
    """The stub lines of one overload: the plain form, and for an operator whose one
    positional argument is an int list, also the varargs form (`zeros(2, 3)`)."""
    arguments = [a for a in f.func.arguments if not (method and a.name == "self")]
    positional = [a for a in arguments if not a.kwarg_only]
    keyword = [a for a in arguments if a.kwarg_only]

    def param(a: Argument) -> str:
        default = " = ..." if a.default is not None else ""
        return f"{python_argument_name(a.name)}: {py_type(a.type)}{default}"

    def render(pos: list[str], kw: list[str]) -> str:
        parts = list(pos)
        if kw and not (parts and parts[-1].startswith("*")):
            parts.append("*")
        parts += kw
        return ", ".join(parts)

    kw = [param(a) for a in keyword]
    if _is_factory(f):
        kw += [f"{name}: _b.bool = ..." for name in FACTORY_EXTRA_KWARGS]
    returns = py_return_type(f.func)
    forms = [StubOverload(render([param(a) for a in positional], kw), returns)]
    if len(positional) == 1 and positional[0].type.is_list and positional[0].type.base in ("int", "SymInt"):
        forms.append(StubOverload(render([f"*{positional[0].name}: _b.int"], kw), returns))
    return forms


@dataclass(frozen=True)
class StubGroup:
    name: str
    overloads: tuple[StubOverload, ...]


def signature_rows(registry: Registry) -> list[SignatureRow]:
    rows = []
    for f in registry.functions:
        for method in (False, True):
            if (f.has_method_variant if method else f.has_function_variant):
                rows.append(SignatureRow(f.func.base_name, str(f.func), method, _is_factory(f)))
    return rows


def stub_groups(registry: Registry, method: bool) -> list[StubGroup]:
    groups: dict[str, list[StubOverload]] = {}
    for f in registry.functions:
        if not (f.has_method_variant if method else f.has_function_variant):
            continue
        groups.setdefault(f.func.base_name, [])
        for form in _stub_params(f, method):
            if form not in groups[f.func.base_name]:
                groups[f.func.base_name].append(form)
    return [StubGroup(name, tuple(overloads)) for name, overloads in sorted(groups.items())]


def render(registry: Registry, templates_dir: Path, out_dir: Path) -> list[Path]:
    environment = make_environment(templates_dir)
    context = dict(rows=signature_rows(registry), functions=stub_groups(registry, False),
                   methods=stub_groups(registry, True), dtype_names=DTYPE_NAMES)
    written = []
    for name in OUTPUTS:
        template_name = name + ".j2"
        text = environment.get_template(template_name).render(template_name=template_name, **context)
        path = out_dir / name
        write_if_changed(path, text)
        written.append(path)
    return written


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="codegen/python_bindings.py", description=__doc__.split("\n")[0])
    parser.add_argument("--schemas", nargs="+", required=True, metavar="FILE")
    parser.add_argument("--templates", required=True, metavar="DIR")
    parser.add_argument("--out-dir", required=True, metavar="DIR")
    arguments = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        render(load_registry(arguments.schemas), Path(arguments.templates), Path(arguments.out_dir))
    except SchemaErrors as failure:
        for error in failure.errors:
            print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Turns loaded YAML entries into NativeFunctions.

Every known key is taken from the entry and read into a typed field; keys left over are
errors with a suggestion. Mistakes local to one entry are reported here; rules that span
several fields or entries live in validate.py. An entry whose `func` parses always reaches
validation, a field with a mistake replaced by its default; its name is remembered in
`ParsedEntries.incomplete` so that rules about other entries do not report a cascade of
follow-on errors about it (the run fails anyway, so no model is built from it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from codegen import cpp_types, scalar_overloads
from codegen.errors import ErrorCollector, Location, SchemaError, describe_yaml_value, suggestion
from codegen.kernel_families import implied_dispatch, parse_kernel
from codegen.loader import LocatedList, LocatedMap
from codegen.model import (DEVICE_CHECKS, DISPATCH_KEYS, TAGS, VARIANTS, FrozenDict,
                           FunctionSchema, NativeFunction)
from codegen.parse_conformance import parse_conformance
from codegen.parse_derivatives import parse_derivatives
from codegen.schema_parser import SchemaSyntaxError, parse_schema, schema_display_name
from codegen.yaml_values import (CPP_IDENTIFIER, Node, expect_bool, expect_mapping,
                                 expect_string, item_loc, name_list)

# Every key some part of the generator reads; anything else is an "unknown key" error.
# torchgen's `autogen` and `manual_cpp_binding` are not here: nothing would read them.
ENTRY_KEYS = ("func", "variants", "dispatch", "structured", "structured_delegate", "tags",
              "device_check", "device_guard", "derivatives", "conformance", "batching", "kernel",
              "scalar_overload_of")


@dataclass
class ParsedEntries:
    """What parsing a set of files produced, in declaration order: every entry whose schema
    parsed, as a NativeFunction and as (full name, location of its `func`); and the names of
    those among them that had other mistakes (incomplete: a field fell back to its default)."""

    functions: list[NativeFunction] = field(default_factory=list)
    declared: list[tuple[str, Location]] = field(default_factory=list)
    incomplete: set[str] = field(default_factory=set)


def parse_document(document: Any, path: str, errors: ErrorCollector,
                   into: ParsedEntries) -> None:
    """Reads one loaded file (a list of entries) into `into`."""
    if document is None:
        return  # an empty file declares nothing
    if not isinstance(document, LocatedList):
        line = getattr(document, "line", 1)
        errors.error(Location(path, line), "top level must be a list of operator entries, "
                                           f"found {describe_yaml_value(document, longest=0)}")
        return
    for index, entry in enumerate(document):
        if not isinstance(entry, LocatedMap):
            errors.error(item_loc(path, document, index),
                         "entry must be a mapping with a 'func' key, "
                         f"found {describe_yaml_value(entry)}")
            continue
        _parse_entry(Node(entry, path), errors, into)


def _parse_entry(node: Node, errors: ErrorCollector, into: ParsedEntries) -> None:
    errors_before = len(errors)
    func = _parse_func(node, errors)
    raw_func = node.mapping.get("func")
    context = f" in '{schema_display_name(raw_func)}'" if isinstance(raw_func, str) else ""

    fields: dict[str, Any] = {}

    def read(key: str, reader, default: Any) -> None:
        fields[key] = default
        if not node.has(key):
            return
        value = node.take(key)
        with errors.collecting():
            fields[key] = reader(value, node.loc_of(key), context)

    read("variants", lambda v, loc, ctx: _parse_variants(v, loc, node.path, ctx), ("function",))
    read("dispatch", lambda v, loc, ctx: _parse_dispatch(v, loc, node.path, ctx, errors), None)
    read("structured", lambda v, loc, ctx: expect_bool(v, loc, f"'structured'{ctx}"), False)
    read("structured_delegate",
         lambda v, loc, ctx: expect_string(v, loc, f"'structured_delegate'{ctx}"), None)
    read("tags", lambda v, loc, ctx: _parse_tags(v, loc, node.path, ctx), ())
    read("device_check", _parse_device_check, "ExactSame")
    read("device_guard", lambda v, loc, ctx: expect_bool(v, loc, f"'device_guard'{ctx}"), True)
    read("batching", _parse_batching, None)
    read("kernel", lambda v, loc, ctx: parse_kernel(v, loc, node.path, ctx, errors), None)
    read("scalar_overload_of",
         lambda v, loc, ctx: expect_string(v, loc, f"'scalar_overload_of'{ctx}"), None)
    derivatives_node, conformance_node = node.take("derivatives"), node.take("conformance")
    node.report_unknown(errors, "key", ENTRY_KEYS, context)

    if func is None:
        return
    into.declared.append((func.full_name, func.loc))
    derivatives = conformance = None
    if node.has("derivatives"):
        with errors.collecting():
            derivatives = parse_derivatives(derivatives_node, node.loc_of("derivatives"),
                                            node.path, func, errors)
    if node.has("conformance"):
        with errors.collecting():
            conformance = parse_conformance(conformance_node, node.loc_of("conformance"),
                                            node.path, func, errors)

    if len(errors) != errors_before:
        into.incomplete.add(func.full_name)

    dispatch = fields["dispatch"]
    if dispatch is None and fields["kernel"] is not None and not node.has("dispatch"):
        dispatch = implied_dispatch(func)  # Note [Kernels declared in the schema]
    if dispatch is None and fields["scalar_overload_of"] is not None and not node.has("dispatch"):
        dispatch = scalar_overloads.implied_dispatch(func)  # Note [Scalar overloads from the schema]
    defaulted = dispatch is None and fields["structured_delegate"] is None \
        and not node.has("kernel") and not node.has("scalar_overload_of")
    if defaulted:
        dispatch = FrozenDict({"CompositeImplicitAutograd": cpp_types.default_kernel_name(func)})
    into.functions.append(NativeFunction(
        func=func,
        variants=fields["variants"],
        dispatch=dispatch if dispatch is not None else FrozenDict(),
        dispatch_defaulted=defaulted,
        structured=fields["structured"],
        structured_delegate=fields["structured_delegate"],
        tags=fields["tags"],
        device_check=fields["device_check"],
        device_guard=fields["device_guard"],
        derivatives=derivatives,
        conformance=conformance,
        batching=fields["batching"],
        kernel=fields["kernel"],
        scalar_overload_of=fields["scalar_overload_of"],
        loc=node.loc,
        key_locs=FrozenDict({str(key): node.loc_of(key) for key in node.mapping}),
    ))


def _parse_batching(value: Any, loc: Location, context: str) -> str:
    """`batching: <rule>`, `reduce_all(<overload>)` or `fold(<rank>)`: see codegen/batching.py."""
    from codegen.batching import RULES, is_rule
    text = expect_string(value, loc, f"'batching'{context}").strip()
    if not is_rule(text):
        raise SchemaError(loc, f"unknown batching rule '{text}'{context}; expected one of "
                               f"{', '.join(RULES)}, reduce_all(<overload>) or fold(<rank>)"
                               + suggestion(text, tuple(RULES)))
    return text


def _parse_func(node: Node, errors: ErrorCollector) -> Optional[FunctionSchema]:
    if not node.has("func"):
        errors.error(node.loc, "entry has no 'func' key")
        return None
    text, loc = node.take("func"), node.loc_of("func")
    if not isinstance(text, str):
        errors.error(loc, f"'func' must be a schema string, found {describe_yaml_value(text)}")
        return None
    try:
        return parse_schema(text.strip(), loc)
    except SchemaSyntaxError as error:
        errors.error(loc, f"malformed schema for '{schema_display_name(text)}': {error.message}")
        return None


def _parse_variants(value: Any, loc: Location, path: str, context: str) -> tuple[str, ...]:
    names = name_list(value, loc, path, f"'variants'{context}")
    if not names:
        # An empty list would generate neither tg::op nor Tensor::op: the operator would exist
        # only in the dispatcher, which is never what an entry means.
        raise SchemaError(loc, f"'variants: []'{context} leaves the operator without any C++ "
                               f"function; list at least one of: {', '.join(VARIANTS)}, or leave "
                               "'variants' out for the default (function)")
    for name, name_loc in names:
        if name not in VARIANTS:
            raise SchemaError(name_loc,
                              f"unknown variant '{name}'{context}{suggestion(name, VARIANTS)}")
    given = {name for name, _ in names}
    return tuple(v for v in VARIANTS if v in given)


def _parse_tags(value: Any, loc: Location, path: str, context: str) -> tuple[str, ...]:
    names = name_list(value, loc, path, f"'tags'{context}")
    for name, name_loc in names:
        if name not in TAGS:
            raise SchemaError(name_loc, f"unknown tag '{name}'{context}{suggestion(name, TAGS)}")
    return tuple(dict.fromkeys(name for name, _ in names))


def _parse_device_check(value: Any, loc: Location, context: str) -> str:
    if value not in DEVICE_CHECKS:
        raise SchemaError(loc, f"unknown device_check {describe_yaml_value(value)}{context}"
                               + suggestion(str(value), DEVICE_CHECKS))
    return value


def _parse_dispatch(value: Any, loc: Location, path: str, context: str,
                    errors: ErrorCollector) -> Optional[FrozenDict]:
    """Expands comma-joined keys ("CPU, CUDA: k" gives both keys kernel k). Reports every
    bad key; returns the table in DISPATCH_KEYS order."""
    mapping = expect_mapping(value, loc, f"'dispatch'{context}")
    if not mapping:
        raise SchemaError(loc, f"'dispatch'{context} is empty")
    table: dict[str, str] = {}
    first_line: dict[str, int] = {}
    failed = False
    for raw_key, kernel in mapping.items():
        key_loc = Location(path, mapping.line_of(raw_key))
        keys = [part.strip() for part in str(raw_key).split(",")]
        if not isinstance(kernel, str) or not CPP_IDENTIFIER.match(kernel.strip()) \
                or kernel.strip() in cpp_types.CPP_KEYWORDS:
            errors.error(key_loc, f"kernel name {describe_yaml_value(kernel)} for dispatch key "
                                  f"'{raw_key}'{context} is not a C++ identifier")
            failed = True
            continue
        for key in keys:
            if key not in DISPATCH_KEYS:
                errors.error(key_loc, f"unknown dispatch key '{key}'{context}"
                                      + suggestion(key, DISPATCH_KEYS))
                failed = True
            elif key in table:
                errors.error(key_loc, f"dispatch key '{key}'{context} given twice "
                                      f"(first at line {first_line[key]})")
                failed = True
            else:
                table[key] = kernel.strip()
                first_line[key] = key_loc.line
    if failed:
        return None  # each mistake is reported; the entry is incomplete
    return FrozenDict((key, table[key]) for key in DISPATCH_KEYS if key in table)

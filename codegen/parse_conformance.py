"""Reads an entry's `conformance:` mapping: what the generated tests need beyond the schema.

Keys: `reference` (a scalar C++ expression over the argument names), `samples` (a list of
{argument: shape or value}), `domain` ({argument: positive | nonzero | unit | [lo, hi]}),
`dtypes` (the dtypes the numeric checks run in; what the operator supports comes from its
kernels' dtype dispatch), `input_dtypes` ({argument: dtype} for tensors whose dtype is fixed,
such as a bool condition or int64 indices), `tolerance` ({dtype: {atol, rtol}}), `compare`
(`values`, or `metadata` when results are uninitialized memory) and `skip` ({check: reason}). Every argument name, dtype and check name is checked, with suggestions.
"""

from __future__ import annotations

from typing import Any, Callable

from codegen.check_formulas import check_reference
from codegen.errors import ErrorCollector, Location, SchemaError, describe_yaml_value, suggestion
from codegen.model import (CONFORMANCE_CHECKS, DOMAIN_KINDS, DTYPES, Argument, ConformanceHints,
                           Domain, FrozenDict, FunctionSchema, Sample, SampleInput, Tolerance)
from codegen.yaml_values import (Node, expect_list, expect_mapping, expect_number,
                                 expect_string, freeze, item_loc, name_list)

CONFORMANCE_KEYS = ("reference", "samples", "domain", "dtypes", "input_dtypes", "grad_inputs", "tolerance",
                    "compare", "skip")
COMPARE_MODES = ("values", "metadata")
TOLERANCE_KEYS = ("atol", "rtol")


def parse_conformance(value: Any, loc: Location, path: str, func: FunctionSchema,
                      errors: ErrorCollector) -> ConformanceHints:
    name = func.full_name
    node = Node(expect_mapping(value, loc, f"'conformance' of '{name}'"), path)
    fields: dict[str, Any] = {"reference": None, "samples": (), "domain": FrozenDict(),
                              "dtypes": None, "input_dtypes": FrozenDict(), "tolerance": FrozenDict(),
                              "compare": "values", "skip": FrozenDict(), "grad_inputs": None}
    readers: dict[str, Callable[[Any, Location], Any]] = {
        "reference": lambda v, at: check_reference(
            expect_string(v, at, f"conformance 'reference' of '{name}'"), func, at),
        "samples": lambda v, at: _parse_samples(v, at, path, func, errors),
        "domain": lambda v, at: _parse_domain(v, at, path, func, errors),
        "dtypes": lambda v, at: _parse_dtypes(v, at, path, name),
        "input_dtypes": lambda v, at: _parse_input_dtypes(v, at, path, func, errors),
        "grad_inputs": lambda v, at: _parse_grad_inputs(v, at, path, func),
        "tolerance": lambda v, at: _parse_tolerances(v, at, path, name, errors),
        "compare": lambda v, at: _parse_compare(v, at, name),
        "skip": lambda v, at: _parse_skips(v, at, path, name, errors),
    }
    for key, reader in readers.items():
        if node.has(key):
            with errors.collecting():
                fields[key] = reader(node.take(key), node.loc_of(key))
    node.report_unknown(errors, "conformance key", CONFORMANCE_KEYS, f" in '{name}'")
    return ConformanceHints(loc=loc, **fields)


def _argument_named(key: Any, loc: Location, func: FunctionSchema, what: str) -> Argument:
    """The non-out argument `key` names; out arguments are made by the harness."""
    arguments = {a.name: a for a in func.non_out_arguments}
    if key in {a.name for a in func.out_arguments}:
        raise SchemaError(loc, f"{what} names out argument '{key}' of '{func.full_name}'; "
                               "the harness makes out arguments itself")
    if key not in arguments:
        raise SchemaError(loc, f"{what} names unknown argument '{key}' of '{func.full_name}'"
                               + suggestion(str(key), list(arguments)))
    return arguments[key]


def _parse_samples(value: Any, loc: Location, path: str, func: FunctionSchema,
                   errors: ErrorCollector) -> tuple[Sample, ...]:
    samples = expect_list(value, loc, f"conformance 'samples' of '{func.full_name}'")
    parsed = []
    for index, item in enumerate(samples):
        with errors.collecting():
            parsed.append(_parse_sample(item, item_loc(path, samples, index), path, func, errors))
    return tuple(parsed)


def _parse_sample(value: Any, loc: Location, path: str, func: FunctionSchema,
                  errors: ErrorCollector) -> Sample:
    mapping = expect_mapping(value, loc, f"each conformance sample of '{func.full_name}'")
    inputs: dict[str, SampleInput] = {}
    errors_before = len(errors)
    for key, item in mapping.items():
        key_loc = Location(path, mapping.line_of(key))
        with errors.collecting():
            argument = _argument_named(key, key_loc, func, "conformance sample")
            inputs[argument.name] = _sample_input(argument, item, key_loc, func.full_name)
    missing = [a.name for a in func.non_out_arguments
               if a.default is None and a.name not in mapping]
    if missing and len(errors) == errors_before:  # a misspelt name is reported once
        raise SchemaError(loc, f"conformance sample of '{func.full_name}' lacks required "
                               "argument" + ("s " if len(missing) > 1 else " ")
                               + ", ".join(f"'{m}'" for m in missing))
    ordered = [(n, inputs[n]) for n in func.argument_names if n in inputs]
    return Sample(FrozenDict(ordered), loc)


def _is_shape(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(size, int) and not isinstance(size, bool) and size >= 0 for size in value)


_SCALAR_CHECKS: dict[str, Callable[[Any], bool]] = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "str": lambda v: isinstance(v, str),
    "Scalar": lambda v: isinstance(v, (int, float, bool)),
}
_SCALAR_CHECKS["SymInt"] = _SCALAR_CHECKS["int"]
_SCALAR_CHECKS["ScalarType"] = lambda v: v in DTYPES


def _sample_input(argument: Argument, value: Any, loc: Location, op_name: str) -> SampleInput:
    type_ = argument.type
    what = f"sample value for '{argument.name}' ({type_}) of '{op_name}'"
    if value is None or (value == "None" and type_.base != "str"):  # YAML reads None as a string
        value = None
        if not (type_.optional or argument.default == "None"):
            raise SchemaError(loc, f"{what} cannot be None; the argument is not optional")
        return SampleInput(argument.name, "value", value=None)
    if type_.is_tensor:
        if isinstance(value, dict):
            return _tensor_spec(argument, value, loc, op_name)
        if not _is_shape(value):
            raise SchemaError(loc, f"{what} must be a shape such as [3, 4], "
                                   f"found {describe_yaml_value(value)}")
        return SampleInput(argument.name, "tensor", shape=freeze(value))
    if type_.is_tensor_list:
        if not isinstance(value, list) or not all(_is_shape(shape) for shape in value):
            raise SchemaError(loc, f"{what} must be a list of shapes such as [[2, 3], [2, 3]], "
                                   f"found {describe_yaml_value(value)}")
        return SampleInput(argument.name, "tensor_list", shapes=freeze(value))
    check = _SCALAR_CHECKS.get(type_.base, lambda v: isinstance(v, str))
    items = value if type_.is_list and isinstance(value, list) else [value]
    if (isinstance(value, (list, dict)) and not type_.is_list) or not all(map(check, items)):
        raise SchemaError(loc, f"{what} does not fit the type, found {describe_yaml_value(value)}")
    return SampleInput(argument.name, "value", value=freeze(value))


TENSOR_SPEC_KEYS = ("shape", "dtype", "domain")


def _tensor_spec(argument: Argument, value: dict, loc: Location, op_name: str) -> SampleInput:
    """`{shape: [3], dtype: int64, domain: [0, 4]}`: a tensor with its own dtype and values."""
    what = f"sample tensor '{argument.name}' of '{op_name}'"
    unknown = [key for key in value if key not in TENSOR_SPEC_KEYS]
    if unknown:
        raise SchemaError(loc, f"unknown key '{unknown[0]}' in {what}"
                               + suggestion(str(unknown[0]), TENSOR_SPEC_KEYS))
    shape = value.get("shape")
    if not _is_shape(shape):
        raise SchemaError(loc, f"{what} needs a shape such as [3, 4], "
                               f"found {describe_yaml_value(shape)}")
    dtype = _dtype(str(value["dtype"]), loc, op_name) if "dtype" in value else None
    domain = _domain(value["domain"], loc, argument.name, op_name) if "domain" in value else None
    if domain is not None and domain.kind == "interval" and dtype not in (None, "float64", "float32",
                                                                          "float16", "bfloat16"):
        if domain.low != int(domain.low) or domain.high != int(domain.high):
            raise SchemaError(loc, f"the domain of {what} holds integers ({dtype}): give integer "
                                   f"bounds, found [{domain.low}, {domain.high}]")
    return SampleInput(argument.name, "tensor", shape=freeze(shape), dtype=dtype, domain=domain)


def _parse_domain(value: Any, loc: Location, path: str, func: FunctionSchema,
                  errors: ErrorCollector) -> FrozenDict:
    mapping = expect_mapping(value, loc, f"conformance 'domain' of '{func.full_name}'")
    domains: dict[str, Domain] = {}
    for key, spec in mapping.items():
        key_loc = Location(path, mapping.line_of(key))
        with errors.collecting():
            argument = _argument_named(key, key_loc, func, "conformance domain")
            domains[argument.name] = _domain(spec, key_loc, argument.name, func.full_name)
    return FrozenDict(domains)


def _domain(spec: Any, loc: Location, argument_name: str, op_name: str) -> Domain:
    what = f"domain of '{argument_name}' in '{op_name}'"
    if isinstance(spec, str):
        if spec not in DOMAIN_KINDS:
            raise SchemaError(loc, f"unknown domain '{spec}' for '{argument_name}' in "
                                   f"'{op_name}'"
                                   + suggestion(spec, DOMAIN_KINDS + ("[low, high]",)))
        return Domain(spec)
    if isinstance(spec, list) and len(spec) == 2:
        low = expect_number(spec[0], loc, f"the low end of the {what}")
        high = expect_number(spec[1], loc, f"the high end of the {what}")
        if not low < high:
            raise SchemaError(loc, f"{what} is empty: [{spec[0]}, {spec[1]}] needs low < high")
        return Domain("interval", low, high)
    raise SchemaError(loc, f"{what} must be one of {', '.join(DOMAIN_KINDS)} or [low, high], "
                           f"found {describe_yaml_value(spec)}")


def _dtype(name: str, loc: Location, op_name: str) -> str:
    if name not in DTYPES:
        raise SchemaError(loc, f"unknown dtype '{name}' in conformance of '{op_name}'"
                               + suggestion(name, DTYPES))
    return name


def _parse_dtypes(value: Any, loc: Location, path: str, op_name: str) -> tuple[str, ...]:
    names = name_list(value, loc, path, f"conformance 'dtypes' of '{op_name}'")
    return tuple(dict.fromkeys(_dtype(name, name_loc, op_name) for name, name_loc in names))


def _parse_tolerances(value: Any, loc: Location, path: str, op_name: str,
                      errors: ErrorCollector) -> FrozenDict:
    mapping = expect_mapping(value, loc, f"conformance 'tolerance' of '{op_name}'")
    tolerances: dict[str, Tolerance] = {}
    for dtype, spec in mapping.items():
        key_loc = Location(path, mapping.line_of(dtype))
        with errors.collecting():
            _dtype(str(dtype), key_loc, op_name)
            what = f"tolerance for {dtype} in '{op_name}'"
            node = Node(expect_mapping(spec, key_loc, what), path)
            bounds = {}
            for key in TOLERANCE_KEYS:
                if node.has(key):
                    number = expect_number(node.take(key), node.loc_of(key), f"{key} of the {what}")
                    if number < 0:
                        raise SchemaError(node.loc_of(key), f"{key} of the {what} is negative")
                    bounds[key] = number
            node.report_unknown(errors, "tolerance key", TOLERANCE_KEYS, f" in '{op_name}'")
            if not bounds and not node.unread():
                raise SchemaError(key_loc, f"{what} gives neither atol nor rtol")
            tolerances[str(dtype)] = Tolerance(bounds.get("atol"), bounds.get("rtol"))
    return FrozenDict(tolerances)


def _parse_skips(value: Any, loc: Location, path: str, op_name: str,
                 errors: ErrorCollector) -> FrozenDict:
    mapping = expect_mapping(value, loc, f"conformance 'skip' of '{op_name}'")
    skips: dict[str, str] = {}
    for check, reason in mapping.items():
        key_loc = Location(path, mapping.line_of(check))
        with errors.collecting():
            if check not in CONFORMANCE_CHECKS:
                raise SchemaError(key_loc, f"unknown conformance check '{check}' in '{op_name}'"
                                           + suggestion(str(check), CONFORMANCE_CHECKS))
            skips[check] = expect_string(reason, key_loc, f"the reason for skipping '{check}' "
                                                          f"in '{op_name}'")
    return FrozenDict(skips)


def _parse_input_dtypes(value: Any, loc: Location, path: str, func: FunctionSchema,
                        errors: ErrorCollector) -> FrozenDict:
    mapping = expect_mapping(value, loc, f"conformance 'input_dtypes' of '{func.full_name}'")
    pinned: dict[str, str] = {}
    for key, dtype in mapping.items():
        key_loc = Location(path, mapping.line_of(key))
        with errors.collecting():
            argument = _argument_named(key, key_loc, func, "conformance input_dtypes")
            if not argument.type.is_tensor_like:
                raise SchemaError(key_loc, f"conformance input_dtypes names '{key}' of "
                                           f"'{func.full_name}', which is a {argument.type}, "
                                           "not a tensor")
            pinned[argument.name] = _dtype(str(dtype), key_loc, func.full_name)
    return FrozenDict(pinned)


def _parse_compare(value: Any, loc: Location, op_name: str) -> str:
    mode = expect_string(value, loc, f"conformance 'compare' of '{op_name}'")
    if mode not in COMPARE_MODES:
        raise SchemaError(loc, f"conformance 'compare' of '{op_name}' must be "
                               f"{' or '.join(COMPARE_MODES)}, found '{mode}'"
                               + suggestion(mode, COMPARE_MODES))
    return mode


def _parse_grad_inputs(value: Any, loc: Location, path: str, func: FunctionSchema) -> tuple[str, ...]:
    """The inputs gradcheck differentiates, for a composite whose decomposition does not
    differentiate every tensor input (nll_loss's `weight`)."""
    names = []
    for name, name_loc in name_list(value, loc, path, f"conformance 'grad_inputs' of '{func.full_name}'"):
        argument = _argument_named(name, name_loc, func, "conformance grad_inputs")
        if not argument.type.is_tensor_like:
            raise SchemaError(name_loc, f"conformance grad_inputs names '{name}' of '{func.full_name}', "
                                        f"which is a {argument.type}, not a tensor")
        names.append(argument.name)
    return tuple(names)

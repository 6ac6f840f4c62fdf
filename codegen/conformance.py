"""The conformance plan of every overload: which checks run, on which samples, through which
C++ calls. templates/ConformanceTests.cpp.j2 prints it; tests/conformance/ holds the checks,
written once for every operator.

Everything here comes from the schema and its `conformance:` block (schemas/README.md):
  - samples: the entry's `samples`, else defaults derived from the argument types (shapes
    that broadcast, dims positive and negative, keepdim both ways);
  - the checks that apply, and the entry's written reasons for those it skips;
  - error samples: shapes that do not broadcast, dims out of range, negative sizes;
  - the typed calls: the overload's function and method, and its siblings (the in-place and
    out overloads of a functional one, the functional overload of the others).
In-place and out overloads without a `conformance:` block use their functional sibling's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from codegen import cpp_api, cpp_types
from codegen.errors import SchemaError, SchemaErrors
from codegen.model import (CONFORMANCE_CHECKS, Argument, ConformanceHints, DerivativeKind,
                           NativeFunction, SchemaKind)
from codegen.registry import Registry

DTYPE_ENUMS = {"float64": "kDouble", "float32": "kFloat", "float16": "kHalf", "bfloat16": "kBFloat16",
               "int64": "kLong", "int32": "kInt", "int16": "kShort", "int8": "kChar", "uint8": "kByte",
               "bool": "kBool"}
# Shapes of the 1st, 2nd, ... tensor argument: each broadcasts against the first.
DEFAULT_SHAPES = ((3, 4), (4,), (3, 1), (1, 4))
DEFAULT_LIST_SHAPES = ((3, 4), (3, 4))
# Shapes no two of which broadcast, and no two of which multiply as matrices.
BAD_SHAPES = ((2, 3), (5, 7), (11, 13), (17, 19))
MAX_SAMPLES = 5
DIM_NAMES = ("dim", "dims", "dim0", "dim1", "start_dim", "end_dim")
SIZE_NAMES = ("size", "sizes", "shape")
REFERENCE_TYPES = ("Tensor", "int", "SymInt", "float", "bool", "Scalar")

RUN, SKIP, NOT_APPLICABLE = "Run", "Skip", "NotApplicable"


@dataclass(frozen=True)
class Caller:
    """A C++ function `Stack name(const Stack& args, std::vector<Tensor>& outs)`."""

    name: str
    body: tuple[str, ...]  # statements


@dataclass(frozen=True)
class ArgPlan:
    role: str             # Tensor | OptionalTensor | TensorList | Value
    name: str
    written: bool
    differentiable: bool
    pinned: Optional[str]  # C++ ScalarType constant
    domain: str            # C++ Domain initializer


@dataclass(frozen=True)
class CheckPlan:
    name: str
    status: str  # Run | Skip | NotApplicable
    reason: str


@dataclass(frozen=True)
class OpPlan:
    f: NativeFunction
    order: int
    ident: str
    kind: str                       # OpKind enumerator
    kernel_keys: tuple[str, ...]
    args: tuple[ArgPlan, ...]
    out_names: tuple[str, ...]
    samples: tuple[tuple[str, ...], ...]        # C++ SampleValue expressions per argument
    error_samples: tuple[tuple[str, tuple[str, ...]], ...]
    callers: tuple[Caller, ...]
    call: str
    method: Optional[str]
    inplace: Optional[tuple[str, str]]          # (caller, overload name)
    out: Optional[tuple[str, str]]
    functional: Optional[tuple[str, str]]
    out_count: int
    reference: Optional[str]
    reference_locals: tuple[tuple[int, str], ...]  # (argument index, name): numbers it reads
    reference_strings: tuple[tuple[int, str], ...]  # the same for `str` arguments
    tolerances: tuple[tuple[str, float, float], ...]
    dtypes: tuple[str, ...]
    values_uninitialized: bool
    checks: tuple[CheckPlan, ...]
    random: bool = False         # tagged nondeterministic_seeded: its values come from a generator
    device_check: bool = True    # not `device_check: NoCheck`: tensors on two devices are an error
    output_mask: tuple[bool, ...] = ()  # which returns are differentiable; empty: all

    @property
    def name(self) -> str:
        return self.f.full_name

    @property
    def schema(self) -> str:
        return cpp_api.cpp_string_literal(str(self.f.func))

    @property
    def run_checks(self) -> list[str]:
        return [c.name for c in self.checks if c.status == RUN]


def cpp_string(text: str) -> str:
    return cpp_api.cpp_string_literal(text)


# --- Siblings ---------------------------------------------------------------------------


def _siblings(registry: Registry) -> dict[tuple, dict[SchemaKind, NativeFunction]]:
    """Overloads grouped by root name and non-out arguments: {kind: overload} per group."""
    groups: dict[tuple, dict[SchemaKind, NativeFunction]] = {}
    for f in registry.functions:
        key = (f.func.root_name, f.func.signature_key())
        groups.setdefault(key, {}).setdefault(f.kind, f)
    return groups


# --- Calls ------------------------------------------------------------------------------


def _arg_type(argument: Argument) -> str:
    cpp = cpp_types.argument_type(argument.type)
    cpp = cpp.removeprefix("const ").removesuffix("&").strip()
    return cpp


def _caller(name: str, f: NativeFunction, method: bool) -> Caller:
    """Calls overload `f` through its public function (or method) with arguments from the stack."""
    func = f.func
    body = []
    non_out = list(func.non_out_arguments)
    for index, a in enumerate(non_out):
        body.append(f"auto a_{a.name} = arg<{_arg_type(a)}>(args, {index});")
    outs = {a.name: f"outs.at({k})" for k, a in enumerate(func.out_arguments)}

    def expr(a: Argument) -> str:
        return outs.get(a.name, f"a_{a.name}")

    if method:
        rest = [expr(a) for a in func.arguments if a.name != "self"]
        call = f"a_self.{func.base_name}({', '.join(rest)})"
    else:
        ordered = list(func.arguments)
        if f.kind == SchemaKind.out:
            ordered = list(func.out_arguments) + non_out
        call = f"::tg::{cpp_api.public_function_name(func)}({', '.join(expr(a) for a in ordered)})"
    if func.returns:
        body.append(f"return box_returns({call});")
    else:
        body += [f"{call};", "return {};"]
    return Caller(name, tuple(body))


def _primary_caller(name: str, f: NativeFunction) -> Caller:
    return _caller(name, f, method=not f.has_function_variant)


# --- Samples ----------------------------------------------------------------------------


def _is_dim(a: Argument) -> bool:
    return a.name in DIM_NAMES and a.type.base in ("int", "SymInt")


def _is_size(a: Argument) -> bool:
    return a.name in SIZE_NAMES and a.type.base in ("int", "SymInt") and a.type.is_list


def _int_list(values) -> str:
    return "IValue(std::vector<int64_t>{" + ", ".join(str(int(v)) for v in values) + "})"


def _value(a: Argument, value: Any) -> str:
    """A C++ SampleValue for a non-tensor argument's value from YAML or a default."""
    t = a.type
    if value is None:
        return "value(IValue())"
    if t.is_list:
        if t.base in ("int", "SymInt"):
            return f"value({_int_list(value)})"
        if t.base == "float":
            return "value(IValue(std::vector<double>{" + ", ".join(repr(float(v)) for v in value) + "}))"
        if t.base == "bool":
            return "value(IValue(std::vector<bool>{" + ", ".join("true" if v else "false" for v in value) + "}))"
    if t.base == "bool" or isinstance(value, bool):
        return f"value(IValue({'true' if value else 'false'}))"
    if t.base in ("int", "SymInt") or (t.base == "Scalar" and isinstance(value, int)):
        return f"value(IValue(int64_t{{{int(value)}}}))"
    if t.base in ("float", "Scalar"):
        return f"value(IValue({float(value)!r}))"
    if t.base == "ScalarType":
        return f"value(IValue({DTYPE_ENUMS[value]}))"
    if t.base == "Device":
        return f"value(IValue(Device({cpp_string(value)})))"
    if t.base == "str":
        return f"value(IValue(std::string({cpp_string(value)})))"
    raise SchemaError(a.loc, f"conformance: cannot write a sample value for '{a.name}' ({t})")


def _shape(shape) -> str:
    return "shape({" + ", ".join(str(s) for s in shape) + "})"


def _tensor_spec(shape, dtype: Optional[str], domain) -> str:
    """A sample tensor with its own dtype and domain (`{shape: [6], dtype: int64, domain: [0, 5]}`)."""
    dtype_text = DTYPE_ENUMS[dtype] if dtype else "std::nullopt"
    return f"tensor({{{', '.join(str(s) for s in shape)}}}, {dtype_text}, {_domain_text(domain)})"


def _shapes(shapes) -> str:
    return "shapes({" + ", ".join("{" + ", ".join(str(s) for s in shape) + "}" for shape in shapes) + "})"


def _default_value(a: Argument, has_tensor_input: bool, op_name: str) -> Optional[Any]:
    """A value for an argument with no default that the harness can invent, or raises."""
    t = a.type
    if t.optional:
        return None
    if t.base in ("int", "SymInt"):
        if t.is_list:
            return [2, 6] if has_tensor_input else [2, 3]
        return 2
    if t.base == "float":
        return [0.5] if t.is_list else 0.5
    if t.base == "Scalar":
        return 2
    if t.base == "bool":
        return False
    if t.base == "ScalarType":
        return "float64"  # gradcheck runs in float64: a cast to float32 would spoil it
    if t.base == "Device":
        return "cpu"
    raise SchemaError(a.loc, f"'{a.name}' ({t}) of '{op_name}' has no value the conformance tests "
                             "can invent; give `conformance: samples:`")


def _default_samples(f: NativeFunction) -> list[dict[str, str]]:
    """A base sample and variations of it: dims negative and several, keepdim and bools flipped."""
    func = f.func
    non_out = list(func.non_out_arguments)
    has_tensor_input = any(a.type.is_tensor_like for a in non_out)
    base: dict[str, str] = {}
    variations: list[tuple[str, str]] = []
    tensors = 0
    for a in non_out:
        t = a.type
        if t.is_tensor and not t.optional:
            base[a.name] = _shape(DEFAULT_SHAPES[min(tensors, len(DEFAULT_SHAPES) - 1)])
            tensors += 1
        elif t.is_tensor_list:
            base[a.name] = _shapes(DEFAULT_LIST_SHAPES)
        elif t.is_tensor:  # Tensor?
            base[a.name] = "value(IValue())" if a.default is None else "use_default()"
        elif _is_dim(a):
            if t.is_list:
                base[a.name] = _value(a, [1])
                variations += [(a.name, _value(a, [-1])), (a.name, _value(a, [0, 1]))]
            else:
                base[a.name] = _value(a, 1)
                variations.append((a.name, _value(a, -1)))
        elif t.base == "bool" and not t.is_list and not t.optional:
            start = a.default == "True"
            base[a.name] = _value(a, start)
            variations.append((a.name, _value(a, not start)))
        elif a.default is not None:
            base[a.name] = "use_default()"
        else:
            base[a.name] = _value(a, _default_value(a, has_tensor_input, f.full_name))
    samples = [base]
    for name, value in variations:
        if len(samples) == MAX_SAMPLES:
            break
        samples.append({**base, name: value})
    return samples


def _yaml_samples(f: NativeFunction, hints: ConformanceHints) -> list[dict[str, str]]:
    samples = []
    for sample in hints.samples:
        values: dict[str, str] = {}
        for a in f.func.non_out_arguments:
            given = sample.inputs.get(a.name)
            if given is None:
                values[a.name] = "use_default()"
            elif given.kind == "tensor" and (given.dtype or given.domain):
                values[a.name] = _tensor_spec(given.shape, given.dtype, given.domain)
            elif given.kind == "tensor":
                values[a.name] = _shape(given.shape)
            elif given.kind == "tensor_list":
                values[a.name] = _shapes(given.shapes)
            else:
                values[a.name] = _value(a, given.value)
        samples.append(values)
    return samples


def _error_samples(f: NativeFunction, base: dict[str, str], first_shape_rank: int,
                   pinned: dict) -> list[tuple[str, dict[str, str]]]:
    """Bad inputs built from the base sample, each with what is wrong with it."""
    non_out = list(f.func.non_out_arguments)
    bad: list[tuple[str, dict[str, str]]] = []
    def fixed_dtype(a: Argument) -> bool:  # pinned, or a sample tensor spec with its own dtype
        text = base.get(a.name, "")
        return a.name in pinned or (text.startswith("tensor(") and ", std::nullopt," not in text)

    tensors = [a for a in non_out if a.type.is_tensor and not a.type.optional and not fixed_dtype(a)]
    if len(tensors) >= 2:
        sample = dict(base)
        for a, shape in zip(tensors, BAD_SHAPES):
            sample[a.name] = _shape(shape)
        bad.append(("shapes that do not fit together", sample))
    for a in non_out:
        if _is_dim(a) and first_shape_rank >= 0:
            wrong = first_shape_rank + 3
            for value in (wrong, -wrong - 1):
                bad.append((f"{a.name} {value} out of range for a {first_shape_rank}-d input",
                            {**base, a.name: _value(a, [value] if a.type.is_list else value)}))
        elif _is_size(a):
            bad.append((f"a negative size in {a.name}", {**base, a.name: _value(a, [-2, 3])}))
    return bad


def _first_rank(sample: dict[str, str], f: NativeFunction) -> int:
    for a in f.func.non_out_arguments:
        text = sample.get(a.name, "")
        if a.type.is_tensor and (text.startswith("shape({") or text.startswith("tensor({")):
            inner = text[text.index("{") + 1:text.index("}")].strip()
            return 0 if not inner else inner.count(",") + 1
    return -1


# --- Checks -----------------------------------------------------------------------------


def _kernel_keys(f: NativeFunction, registry: Registry, autograd_names: set[str]) -> tuple[str, ...]:
    source = registry.get(f.structured_delegate) if f.structured_delegate else f
    keys = [k for k in source.dispatch if k != "CUDA"]  # CUDA kernels register only in CUDA builds
    if f.full_name in autograd_names:
        keys.append("Autograd")
    return tuple(keys)


def _differentiable(f: NativeFunction, functional: Optional[NativeFunction]) -> set[str]:
    derivatives = f.derivatives or (functional.derivatives if functional is not None
                                    and f.kind == SchemaKind.inplace else None)
    tensor_args = {a.name for a in f.func.non_out_arguments if a.type.is_tensor_like}
    if derivatives is not None:
        return {name for d in derivatives.backward if d.kind == DerivativeKind.formula
                for name in d.names if name in tensor_args}
    if "CompositeImplicitAutograd" in f.dispatch:
        return tensor_args
    return set()


def _forward_rule_status(f: NativeFunction, functional: Optional[NativeFunction],
                         differentiable: set[str]) -> tuple[bool, str]:
    """Whether the transform checks (forward_ad, fwd_bwd_consistency, vmap) run, or why not."""
    if f.kind == SchemaKind.out:
        return False, "out= overloads do not propagate tangents"
    if "CompositeImplicitAutograd" in f.dispatch:
        return False, "a decomposition: the overloads it calls carry the forward rules"
    derivatives = f.derivatives or (functional.derivatives if functional is not None
                                    and f.kind == SchemaKind.inplace else None)
    if derivatives is None:
        return False, "no derivatives"
    if derivatives.forward_not_implemented is not None:
        return False, f"forward: not_implemented ({derivatives.forward_not_implemented})"
    if not derivatives.forward or not differentiable:
        return False, "no differentiable input"
    if any(d.kind == DerivativeKind.not_implemented for d in derivatives.forward):
        return False, "forward: not_implemented"
    return True, ""


def _checks(f: NativeFunction, hints: Optional[ConformanceHints], *, has_variants: bool,
            differentiable: set[str], has_errors: bool, has_dtype_axis: bool,
            has_tensor: bool, runs_on_cuda: bool,
            forward: tuple[bool, str] = (False, "")) -> tuple[CheckPlan, ...]:
    kind = f.kind
    self_argument = f.func.argument("self")
    list_self = self_argument is not None and self_argument.type.is_tensor_list
    applies: dict[str, tuple[bool, str]] = {
        "registration": (True, ""),
        "boxed": (True, ""),
        "variants": ((kind == SchemaKind.inplace and not list_self) or (kind == SchemaKind.functional and has_variants),
                     "out overloads are checked by `out`" if kind == SchemaKind.out
                     else "it writes a list of tensors and has no function variant to agree with"
                     if list_self else "the overload has one variant and no in-place or out sibling"),
        "out": (kind == SchemaKind.out, "not an out overload"),
        "noncontiguous": (has_tensor, "no tensor input"),
        "dtypes": (has_dtype_axis, "neither a tensor input nor a dtype argument"),
        "reference": (kind == SchemaKind.functional and hints is not None and hints.reference is not None,
                      "no `reference:` in the schema" if kind == SchemaKind.functional
                      else "the functional overload's reference covers it"),
        "gradcheck": (kind != SchemaKind.out and bool(differentiable),
                      "out= overloads do not support autograd" if kind == SchemaKind.out
                      else "no differentiable input"),
        "forward_ad": forward,
        "cpu_cuda": (runs_on_cuda, "no CUDA kernel declared"),
        "errors": (has_errors, "no shapes, dims or sizes to get wrong"),
    }
    applies["gradgradcheck"] = applies["gradcheck"]
    applies["fwd_bwd_consistency"] = forward
    applies["vmap"] = forward
    if forward[0] and "nondeterministic_seeded" in f.tags:
        applies["vmap"] = (False, "random: a vmapped call draws other values than a loop of calls")
    skips = hints.skip if hints is not None else {}
    plans = []
    for check in CONFORMANCE_CHECKS:
        runs, reason = applies[check]
        if check in skips:
            plans.append(CheckPlan(check, SKIP, skips[check]))
        else:
            plans.append(CheckPlan(check, RUN if runs else NOT_APPLICABLE, "" if runs else reason))
    return tuple(plans)


# --- Plans ------------------------------------------------------------------------------


def _domain(hints: Optional[ConformanceHints], name: str) -> str:
    return _domain_text(hints.domain.get(name) if hints is not None else None)


def _domain_text(domain) -> str:
    if domain is None:
        return "Domain{}"
    if domain.kind == "interval":
        return f"Domain{{Domain::Interval, {float(domain.low)!r}, {float(domain.high)!r}}}"
    return f"Domain{{Domain::{domain.kind.capitalize()}}}"


def _role(a: Argument) -> str:
    t = a.type
    if t.is_tensor_list:
        return "TensorList"
    if t.is_tensor:
        return "OptionalTensor" if t.optional else "Tensor"
    return "Value"


def plan_overload(f: NativeFunction, order: int, registry: Registry,
                  siblings: dict[SchemaKind, NativeFunction], autograd_names: set[str]) -> OpPlan:
    func = f.func
    ident = cpp_types.overload_cpp_name(func)
    functional = siblings.get(SchemaKind.functional)
    inplace = siblings.get(SchemaKind.inplace)
    out = siblings.get(SchemaKind.out)
    hints = f.conformance
    if hints is None and functional is not None and functional is not f:
        hints = functional.conformance
    pinned = dict(hints.input_dtypes) if hints is not None else {}
    differentiable = _differentiable(f, functional)
    if hints is not None and hints.grad_inputs is not None:
        differentiable = set(hints.grad_inputs)
    derivatives = f.derivatives or (functional.derivatives if functional is not None else None)
    output_mask = (derivatives.output_differentiability
                   if derivatives is not None and derivatives.output_differentiability else ())
    non_out = list(func.non_out_arguments)

    samples = _yaml_samples(f, hints) if hints is not None and hints.samples else _default_samples(f)
    base = samples[0]
    errors = _error_samples(f, base, _first_rank(base, f), pinned)

    callers = [_primary_caller(f"call_{ident}", f)]
    method = None
    if f.has_method_variant and f.has_function_variant:
        callers.append(_caller(f"method_{ident}", f, method=True))
        method = f"method_{ident}"
    elif f.has_method_variant:
        method = f"call_{ident}"

    def sibling(g: Optional[NativeFunction], role: str) -> Optional[tuple[str, str]]:
        if g is None or g is f:
            return None
        name = f"{role}_of_{ident}"
        callers.append(_primary_caller(name, g))
        return name, g.full_name

    is_functional = f.kind == SchemaKind.functional
    inplace_call = sibling(inplace, "inplace") if is_functional else None
    out_call = sibling(out, "out") if is_functional else None
    functional_call = sibling(functional, "functional") if not is_functional else None
    out_source = f if f.kind == SchemaKind.out else (out if is_functional else None)
    out_count = len(out_source.func.out_arguments) if out_source is not None else 0

    has_tensor = any(a.type.is_tensor_like for a in non_out)
    has_dtype_axis = has_tensor or any(a.name == "dtype" and a.type.base == "ScalarType" for a in non_out)
    source = registry.get(f.structured_delegate) if f.structured_delegate else f
    runs_on_cuda = (has_dtype_axis and ("CUDA" in source.dispatch or "CompositeImplicitAutograd" in f.dispatch
                                        or "CompositeExplicitAutograd" in f.dispatch))
    checks = _checks(f, hints, has_variants=bool(method or inplace_call or out_call),
                     differentiable=differentiable, has_errors=bool(errors),
                     has_dtype_axis=has_dtype_axis, has_tensor=has_tensor, runs_on_cuda=runs_on_cuda,
                     forward=_forward_rule_status(f, functional, differentiable))

    reference_locals = tuple((i, a.name) for i, a in enumerate(non_out)
                             if a.type.base in REFERENCE_TYPES and not a.type.is_list)
    reference_strings = tuple((i, a.name) for i, a in enumerate(non_out) if a.type.base == "str"
                              and not a.type.is_list and not a.type.optional)
    tolerances = tuple((DTYPE_ENUMS[dtype], -1.0 if t.atol is None else float(t.atol),
                        -1.0 if t.rtol is None else float(t.rtol))
                       for dtype, t in (hints.tolerance.items() if hints is not None else ()))
    return OpPlan(
        f=f, order=order, ident=ident,
        kind={SchemaKind.inplace: "Inplace", SchemaKind.out: "Out"}.get(f.kind, "Functional"),
        kernel_keys=_kernel_keys(f, registry, autograd_names),
        args=tuple(ArgPlan(_role(a), a.name, a.type.is_write, a.name in differentiable,
                           DTYPE_ENUMS[pinned[a.name]] if a.name in pinned else None,
                           _domain(hints, a.name)) for a in non_out),
        out_names=tuple(a.name for a in func.out_arguments),
        samples=tuple(tuple(s[a.name] for a in non_out) for s in samples),
        error_samples=tuple((what, tuple(s[a.name] for a in non_out)) for what, s in errors),
        callers=tuple(callers), call=f"call_{ident}", method=method,
        inplace=inplace_call, out=out_call, functional=functional_call, out_count=out_count,
        reference=hints.reference if hints is not None and is_functional else None,
        reference_locals=reference_locals, reference_strings=reference_strings, tolerances=tolerances,
        dtypes=tuple(DTYPE_ENUMS[d] for d in (hints.dtypes or ())) if hints is not None else (),
        values_uninitialized=hints is not None and hints.compare == "metadata",
        checks=checks, output_mask=tuple(output_mask),
        random="nondeterministic_seeded" in f.tags, device_check=f.device_check != "NoCheck")


def plans(registry: Registry, autograd_names: set[str]) -> list[OpPlan]:
    """One plan per overload, in declaration order; a schema that needs samples the harness
    cannot invent is reported as `file:line: message`."""
    groups = _siblings(registry)
    result, errors = [], []
    for order, f in enumerate(registry.functions):
        try:
            result.append(plan_overload(f, order, registry, groups[(f.func.root_name, f.func.signature_key())],
                                        autograd_names))
        except SchemaError as error:
            errors.append(error)
    if errors:
        raise SchemaErrors(errors)
    return result

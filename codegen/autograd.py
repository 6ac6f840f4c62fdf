"""Autograd for every operator, worked out from the `derivatives:` blocks.

For each operator that is not CompositeImplicitAutograd (those decompose, and autograd flows
through their parts), this module decides what its Autograd-key kernel does:
  - `out` overloads refuse inputs that require grad;
  - an operator with formulas records a backward node (generated class `<Name>Backward<N>`)
    that saves exactly what its formulas use: whole tensors through SavedVariable, or only
    `self.sizes()`, `self.scalar_type()`, ... when that is all a formula reads, and owned
    copies of the non-tensor arguments;
  - in-place overloads reuse the formulas of their functional overload (a formula that reads
    `self` gets a copy of self from before the operation; one that reads `result` gets self
    from after it);
  - an operator without formulas records a node that raises "not implemented" in backward.
Formulas are C++ expressions over the argument names, `grad` (or `grads[i]`, `grad_<return>`),
`result` (or `resultN`, a return's name) and `grad_input_mask` (as in PyTorch, one bool per
input the formula computes, in the order of its key: whether that gradient is needed).

A `Tensor[]` input has one next edge per element, so the node's slots are known only at run
time: the node saves each list's length, apply() lays the inputs' slots out in order (an
IndexRange per input), and the list's formula returns one gradient per element (a
std::vector<Tensor>, as PyTorch's cat_tensors_backward does). A formula reads a list through
`to_args_sizes(list)` or `to_args_scalartypes(list)`, which save only those.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Optional

from codegen import cpp_api, cpp_types
from codegen.forward_ad import ForwardRule, forward_rule
from codegen.errors import Location, SchemaError, SchemaErrors
from codegen.line_directives import line_directive
from codegen.model import Argument, DerivativeKind, NativeFunction, SchemaKind
from codegen.registry import Registry

# Tensor attributes a formula may read without keeping the tensor alive.
TENSOR_ATTRIBUTES = {
    "sizes": ("std::vector<int64_t>", "{name}.sizes().vec()"),
    "strides": ("std::vector<int64_t>", "{name}.strides().vec()"),
    "scalar_type": ("ScalarType", "{name}.scalar_type()"),
    "device": ("Device", "{name}.device()"),
    "options": ("TensorOptions", "{name}.options()"),
    "dim": ("int64_t", "{name}.dim()"),
    "numel": ("int64_t", "{name}.numel()"),
}

# Owning member types for arguments saved by value.
OWNED_TYPES = {
    "IntArrayRef": "std::vector<int64_t>",
    "OptionalIntArrayRef": "std::optional<std::vector<int64_t>>",
    "const Scalar&": "Scalar",
    "const std::optional<Scalar>&": "std::optional<Scalar>",
    "std::string_view": "std::string",
    "std::optional<std::string_view>": "std::optional<std::string>",
    "ArrayRef<double>": "std::vector<double>",
    "const std::vector<std::optional<Tensor>>&": "std::vector<std::optional<Tensor>>",
}

# Functions of a whole Tensor[] a formula may read: they save what they return, not the list.
LIST_ATTRIBUTES = {
    "to_args_sizes": "std::vector<std::vector<int64_t>>",
    "to_args_scalartypes": "std::vector<ScalarType>",
}

IDENTIFIER = re.compile(r"(?<![\w.:>])([A-Za-z_]\w*)\b(?!\s*::)")


@dataclass(frozen=True)
class Saved:
    """One member of a backward node and how the forward kernel fills it."""

    member: str       # "self_", "alpha_", "self_sizes_"
    cpp_type: str     # "SavedVariable", "Scalar", ...
    init: str         # forward-side expression
    after: bool       # filled after the operation ran (outputs)
    unpack_as: Optional[str] = None  # SavedVariables: the local name apply() unpacks into
    # The slots whose formulas read it, when they are not all of the node's slots: the
    # kernel saves it only if one of them needs a gradient (Note [Save only what is needed]).
    needed_by: tuple[int, ...] = ()

    @property
    def is_saved_variable(self) -> bool:
        return self.cpp_type == "SavedVariable"

    @property
    def save_condition(self) -> str:
        """C++ over `grad_fn`: whether to save it; "" when it is always saved."""
        return " || ".join(f"grad_fn->should_compute_output({i})" for i in self.needed_by)


@dataclass(frozen=True)
class Formula:
    slots: tuple[int, ...]   # the input slots (next edges) it computes
    expression: str          # C++, names already rewritten
    not_implemented: Optional[str] = None  # reason, for not_implemented("...")
    inputs: tuple[str, ...] = ()  # the differentiable inputs it computes, in slot order
    uses_grad_input_mask: bool = False
    source: Optional[Location] = None  # the formula's schema file and line

    @property
    def line_directive(self) -> str:
        """`#line` naming the formula's schema line (Note [Formulas keep their line])."""
        assert self.source is not None
        return line_directive(self.source)


@dataclass(frozen=True)
class NodeInput:
    """A differentiable input of a node: one slot, or one per element of a Tensor[]."""

    name: str
    is_list: bool

    @property
    def size_member(self) -> str:
        """The node member holding the list's length (lists only)."""
        return f"{self.name}_size_"


@dataclass(frozen=True)
class BackwardNode:
    name: str
    op_name: str                      # "mul.Tensor", for messages
    saved: tuple[Saved, ...]
    formulas: tuple[Formula, ...]
    num_outputs: int                  # gradients apply() returns: differentiable inputs (next edges)
    num_inputs: int                   # gradients apply() receives: the operator's returns
    inputs: tuple[NodeInput, ...] = ()

    @property
    def has_list_inputs(self) -> bool:
        """Whether some input is a Tensor[]: then slots are laid out at run time."""
        return any(i.is_list for i in self.inputs)

    @property
    def saved_variables(self) -> tuple[Saved, ...]:
        return tuple(s for s in self.saved if s.is_saved_variable)


@dataclass(frozen=True)
class AutogradKernel:
    """The Autograd-key kernel of one operator."""

    op: cpp_api.Operator
    kind: str                        # out | record | not_implemented | passthrough
    diff_inputs: tuple[str, ...]     # arguments that get next edges, in slot order
    node: Optional[BackwardNode]
    inplace: bool
    is_view: bool
    output_differentiable: tuple[bool, ...]
    forward: Optional[ForwardRule] = None  # record kernels: the tangent rule (forward mode)

    input_positions: tuple[int, ...] = ()  # out kernels: where diff_inputs sit among the arguments

    @property
    def wrapper_name(self) -> str:
        return f"autograd_{self.op.cpp_name}"

    @property
    def is_generated(self) -> bool:
        """Whether the kernel has a generated body. Out and passthrough kernels only guard and
        redispatch: they are instantiations of the runtime templates in
        runtime/autograd/redispatch_below_autograd.h."""
        return self.kind not in ("out", "passthrough")

    @property
    def kernel(self) -> str:
        """The function the Autograd key registers."""
        if self.kind == "passthrough":
            return f"PassthroughKernel<ops::{self.op.cpp_name}>::call"
        if self.kind == "out":
            positions = "".join(f", {i}" for i in self.input_positions)
            return f"OutVariantKernel<ops::{self.op.cpp_name}{positions}>::call"
        return self.wrapper_name


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.strip("_").split("_"))


def _functional_of(registry: Registry, f: NativeFunction) -> Optional[NativeFunction]:
    """The functional overload whose formulas an in-place overload inherits."""
    if f.structured_delegate:
        for group in registry.structured_groups:
            if group.out.full_name == f.structured_delegate and group.functional is not None:
                return group.functional
    key = f.func.signature_key()
    for candidate in registry.functions:
        if (candidate.kind == SchemaKind.functional and candidate.func.root_name == f.func.root_name
                and candidate.func.signature_key() == key):
            return candidate
    return None


def _is_view(f: NativeFunction) -> bool:
    self_argument = f.func.self_argument
    if self_argument is None or self_argument.type.annotation is None or len(f.func.returns) != 1:
        return False
    annotation = f.func.returns[0].type.annotation
    return annotation is not None and not annotation.is_write and annotation == self_argument.type.annotation


class _NodeBuilder:
    """Rewrites one operator's formulas and collects what its node must save."""

    def __init__(self, f: NativeFunction, source: NativeFunction, inplace: bool,
                 output_differentiable: tuple[bool, ...]):
        self.f, self.source, self.inplace = f, source, inplace
        self.output_differentiable = output_differentiable
        self.saved: dict[str, Saved] = {}
        self.arguments = {a.name: a for a in source.func.arguments if not a.is_out}
        self.returns = source.func.returns
        self.uses_grad_input_mask = False
        self.used: set[str] = set()  # the members the formula being rewritten reads

    def _use(self, saved: Saved) -> None:
        self.saved.setdefault(saved.member, saved)
        self.used.add(saved.member)

    def output_index(self, name: str) -> Optional[int]:
        if name == "result" and len(self.returns) == 1:
            return 0
        match = re.fullmatch(r"result(\d+)", name)
        if match and int(match.group(1)) < len(self.returns):
            return int(match.group(1))
        for index, r in enumerate(self.returns):
            if r.name == name:
                return index
        return None

    def save_output(self, index: int) -> str:
        member = f"result{index}_" if len(self.returns) > 1 else "result_"
        local = member[:-1]
        # A differentiable output is the node's own output (saved without its grad_fn, to
        # avoid a cycle); a non-differentiable one (indices) is saved as a plain tensor.
        is_output = "true" if self.output_differentiable[index] else "false"
        if self.inplace:
            init = f"SavedVariable(self, {is_output})"
        elif len(self.returns) > 1:
            init = f"SavedVariable(std::get<{index}>(result), {is_output})"
        else:
            init = f"SavedVariable(result, {is_output})"
        self._use(Saved(member, "SavedVariable", init, after=True, unpack_as=local))
        return local

    def save_tensor(self, name: str) -> str:
        member = f"{name}_"
        argument = self.arguments[name]
        if argument.type.is_tensor_list and argument.type.element_optional:
            # Tensor?[] (index's indices): the list is kept as it is, as PyTorch saves it; its
            # tensors are integer or bool, so they never carry a graph to keep alive.
            return self.save_value(argument)
        if argument.type.is_tensor_list:
            raise SchemaError(self.source.loc_of("derivatives"),
                              f"'{self.source.full_name}': a formula reads the Tensor[] '{name}' "
                              f"whole; read {' or '.join(f'{fn}({name})' for fn in LIST_ATTRIBUTES)}")
        if self.inplace and name == "self":
            init = "SavedVariable(self.clone(), false)"  # the value before the operation
        elif argument.type.optional:
            init = f"SavedVariable({name}.value_or(Tensor()), false)"  # unpacks as undefined
        else:
            init = f"SavedVariable({name}, false)"
        self._use(Saved(member, "SavedVariable", init, after=False, unpack_as=name))
        return name

    def save_value(self, argument: Argument) -> str:
        member = f"{argument.name}_"
        cpp = cpp_types.argument_type(argument.type)
        owned = OWNED_TYPES.get(cpp, cpp)
        init = argument.name
        if cpp in ("IntArrayRef", "ArrayRef<double>"):
            init = f"{argument.name}.vec()"
        elif cpp == "OptionalIntArrayRef":
            init = (f"{argument.name} ? std::optional<std::vector<int64_t>>({argument.name}->vec()) "
                    f": std::nullopt")
        elif cpp == "std::string_view":
            init = f"std::string({argument.name})"
        self._use(Saved(member, owned, init, after=False))
        return member

    def rewrite(self, formula: str) -> str:
        # Attributes first: `self.sizes()` becomes a saved `self_sizes_`.
        def attribute(match: re.Match) -> str:
            name, attr = match.group(1), match.group(2)
            argument = self.arguments.get(name)
            if argument is None or not argument.type.is_tensor:
                return match.group(0)
            cpp_type, init = TENSOR_ATTRIBUTES[attr]
            member = f"{name}_{attr}_"
            source = "self" if self.inplace and name == "self" else name
            self._use(Saved(member, cpp_type, init.format(name=source), after=False))
            return member

        attrs = "|".join(TENSOR_ATTRIBUTES)
        formula = re.sub(rf"\b([A-Za-z_]\w*)\.({attrs})\(\)", attribute, formula)

        def list_attribute(match: re.Match) -> str:
            function, name = match.group(1), match.group(2)
            argument = self.arguments.get(name)
            if argument is None or not argument.type.is_tensor_list:
                return match.group(0)
            member = f"{name}_{function}_"
            self._use(Saved(member, LIST_ATTRIBUTES[function], f"{function}({name})", after=False))
            return member

        functions = "|".join(LIST_ATTRIBUTES)
        formula = re.sub(rf"\b({functions})\(\s*([A-Za-z_]\w*)\s*\)", list_attribute, formula)

        def identifier(match: re.Match) -> str:
            name = match.group(1)
            if name == "grad":
                return "grads[0]"
            if name == "grad_input_mask":
                self.uses_grad_input_mask = True
                return name
            if name.startswith("grad_"):
                index = next((i for i, r in enumerate(self.returns) if r.name == name[5:]), None)
                if index is not None:
                    return f"grads[{index}]"
            if name in self.arguments:
                argument = self.arguments[name]
                if argument.type.base == "Tensor":
                    return self.save_tensor(name)
                return self.save_value(argument)
            index = self.output_index(name)
            if index is not None:
                return self.save_output(index)
            return name

        return IDENTIFIER.sub(identifier, formula)


def _needed_by(saved: Saved, slots: set[int], num_slots: int) -> Saved:
    """Note [Save only what is needed]
    As PyTorch's generated VariableType does, a kernel saves a member only when a formula
    that reads it will run: `mul`'s `other_` serves self's gradient only, so `x * w` with a
    `w` that requires grad and an `x` that does not keeps no copy of `x` alive. A member read
    by every slot's formula (or by none) is always saved; apply() unpacks an unsaved one as an
    undefined tensor that no running formula reads."""
    if not slots or len(slots) == num_slots:
        return saved
    return dataclasses.replace(saved, needed_by=tuple(sorted(slots)))


def _node_names(registry: Registry) -> dict[str, str]:
    """`<Root>Backward<N>`, numbered per root name in declaration order (functional only;
    in-place overloads share their functional's node)."""
    counters: dict[str, int] = {}
    names: dict[str, str] = {}
    for f in registry.functions:
        if f.kind != SchemaKind.functional and not (f.kind == SchemaKind.inplace and f.derivatives):
            continue
        if not f.derivatives or "CompositeImplicitAutograd" in f.dispatch:
            continue
        root = _camel(f.func.root_name)
        n = counters.get(root, 0)
        counters[root] = n + 1
        names[f.full_name] = f"{root}Backward{n}"
    return names


def autograd_kernels(registry: Registry) -> list[AutogradKernel]:
    """The Autograd-key kernel of every operator that is not CompositeImplicitAutograd."""
    names = _node_names(registry)
    kernels: list[AutogradKernel] = []
    errors: list[SchemaError] = []
    for f in registry.functions:
        if "CompositeImplicitAutograd" in f.dispatch:
            continue
        op = cpp_api.operator_of(f)
        tensor_inputs = tuple(a.name for a in f.func.arguments if a.type.base == "Tensor" and not a.is_out)
        n_returns = len(f.func.returns)
        if f.kind == SchemaKind.out:
            cpp_names = [a.name for a in cpp_types.arguments(f.func)]
            kernels.append(AutogradKernel(op, "out", tensor_inputs, None, False, False, (),
                                          input_positions=tuple(cpp_names.index(n) for n in tensor_inputs)))
            continue
        inplace = f.kind == SchemaKind.inplace
        source = f if (f.derivatives or not inplace) else _functional_of(registry, f)
        if source is None or source.derivatives is None:
            kernels.append(AutogradKernel(op, "not_implemented" if tensor_inputs else "passthrough",
                                          tensor_inputs, None, inplace, False, (True,) * n_returns))
            continue
        derivatives = source.derivatives
        diff_inputs = []
        for name in tensor_inputs:
            d = derivatives.backward_for(name)
            if d is None:
                errors.append(SchemaError(source.loc_of("derivatives"),
                                          f"derivatives of '{source.full_name}' say nothing about input "
                                          f"'{name}': give a formula, non_differentiable or not_implemented"))
            elif d.kind != DerivativeKind.non_differentiable:
                if source.func.argument(name).type.is_list and len(d.names) > 1:
                    errors.append(SchemaError(d.loc, f"'{source.full_name}': the Tensor[] input '{name}' "
                                                     "needs a formula of its own, returning one gradient "
                                                     "per element"))
                diff_inputs.append(name)
        output_differentiable = derivatives.output_differentiability or (True,) * n_returns
        if not diff_inputs:
            kernels.append(AutogradKernel(op, "passthrough", (), None, inplace, False, output_differentiable))
            continue
        builder = _NodeBuilder(f, source, inplace, tuple(output_differentiable))
        node_inputs = tuple(NodeInput(n, source.func.argument(n).type.is_list) for n in diff_inputs)
        for i in node_inputs:
            if i.is_list:
                builder.saved.setdefault(i.size_member, Saved(i.size_member, "size_t", f"{i.name}.size()",
                                                              after=False))
        formulas = []
        readers: dict[str, set[int]] = {}  # member -> the slots of the formulas reading it
        for d in derivatives.backward:
            targets = tuple(n for n in d.names if n in diff_inputs)
            slots = tuple(diff_inputs.index(n) for n in targets)
            if not slots:
                continue
            try:
                if d.kind == DerivativeKind.not_implemented:
                    formulas.append(Formula(slots, "", d.reason or "not implemented", targets))
                else:
                    builder.uses_grad_input_mask = False
                    builder.used = set()
                    expression = builder.rewrite(d.formula)
                    for member in builder.used:
                        readers.setdefault(member, set()).update(slots)
                    formulas.append(Formula(slots, expression, None, targets, builder.uses_grad_input_mask,
                                            d.source_loc))
            except SchemaError as error:
                errors.append(error)
        node_name = names.get(source.full_name) or f"{_camel(f.func.root_name)}Backward"
        saved = tuple(builder.saved.values())
        if not any(i.is_list for i in node_inputs):  # a list's slots are known only at run time
            saved = tuple(_needed_by(s, readers.get(s.member, set()), len(diff_inputs)) for s in saved)
        node = BackwardNode(node_name, source.full_name, saved, tuple(formulas),
                            num_outputs=len(diff_inputs), num_inputs=n_returns, inputs=node_inputs)
        try:
            forward = forward_rule(f, source, tuple(diff_inputs), inplace)
        except SchemaError as error:
            errors.append(error)
            forward = None
        kernels.append(AutogradKernel(op, "record", tuple(diff_inputs), node, inplace, _is_view(f),
                                      tuple(output_differentiable), forward))
    if errors:
        raise SchemaErrors(errors)
    return kernels


def backward_nodes(kernels: list[AutogradKernel]) -> list[BackwardNode]:
    """Each node class once (in-place overloads share their functional's class)."""
    seen: dict[str, BackwardNode] = {}
    for k in kernels:
        if k.node is not None and k.node.name not in seen:
            seen[k.node.name] = k.node
    return list(seen.values())

"""Which vmap batching rule each operator uses (runtime/functorch/batching_rules.h).

An entry may name its rule (`batching: pointwise`, `batching: reduce_all(sum.dim_IntList)`,
`batching: fold(4)`); otherwise the rule follows from the schema:
  - CompositeImplicitAutograd operators get none: vmap sees through their decomposition;
  - out= and other mutating overloads get none (the loop fallback serves them);
  - `pointwise`-tagged operators: `pointwise`;
  - a `Tensor[]` first argument with an `int dim`: `cat`;
  - a `reduction`-tagged operator without a dim argument: none (declare `reduce_all`);
  - an operator whose non-tensor arguments all have names whose meaning under a leading
    batch dim is known (DIMS_SAFE_ARGUMENTS: dims shift, sizes gain the batch size, the rest
    do not care): `dims`.
Anything else has no rule and runs the counted loop fallback. Every rule name maps to the
C++ function `functorch::batch_rule_<name>`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from codegen.model import NativeFunction, SchemaKind
from codegen.registry import Registry

RULES = ("pointwise", "dims", "cat", "loss", "mm", "bmm", "addmm", "conv", "conv_backward", "embedding",
         "embedding_backward", "layer_norm", "nll_loss", "index_select", "index_add", "masked_fill", "index", "index_put",
         "squeeze_all", "copy", "fallback")
REDUCE_ALL = re.compile(r"reduce_all\(\s*([A-Za-z_][\w]*(?:\.\w+)?)\s*\)")
# fold(R): an op over a leading N dim whose input has rank R with N (R - 1 without): the vmap
# batch folds into N (pooling, im2col, and every such op of the nn family, by declaration).
FOLD = re.compile(r"fold\(\s*([1-9])\s*\)")


def is_rule(text: str) -> bool:
    """Whether `batching: <text>` names a rule."""
    return text in RULES or REDUCE_ALL.fullmatch(text) is not None or FOLD.fullmatch(text) is not None

# Non-tensor arguments whose meaning does not change when a batch dim is put in front
# (see batch_rule_dims for the ones it rewrites).
DIMS_SAFE_ARGUMENTS = frozenset({
    "dim", "dim0", "dim1", "dims", "size", "shape", "input_sizes", "keepdim", "dtype", "layout",
    "device", "pin_memory", "memory_format", "non_blocking", "copy", "index", "start", "end", "step",
    "diagonal", "fill_value", "implicit", "half_to_float", "input_dtype", "correction", "k",
    "largest", "sorted", "stable", "descending", "approximate", "threshold", "normalized_shape", "eps", "p", "train",
    "scale", "alpha", "sparse_grad", "value", "min", "max", "from", "to", "mean", "std", "generator",
})


@dataclass(frozen=True)
class BatchingRule:
    op: str                         # full name: "add.Tensor"
    rule: str                       # a name in RULES, or "reduce_all"
    via: Optional[str] = None       # reduce_all: the overload computing it over dims; fold: the rank


def rule_of(f: NativeFunction) -> Optional[BatchingRule]:
    if "CompositeImplicitAutograd" in f.dispatch:
        return None
    if f.batching is not None:
        match = REDUCE_ALL.fullmatch(f.batching)
        if match:
            return BatchingRule(f.full_name, "reduce_all", match.group(1))
        fold = FOLD.fullmatch(f.batching)
        if fold:
            return BatchingRule(f.full_name, "fold", fold.group(1))
        return None if f.batching == "fallback" else BatchingRule(f.full_name, f.batching)
    if f.kind not in (SchemaKind.functional, SchemaKind.inplace):
        return None
    arguments = [a for a in f.func.arguments if not a.is_out]
    tensors = [a for a in arguments if a.type.base == "Tensor"]
    others = [a for a in arguments if a.type.base != "Tensor"]
    if not tensors:
        return None  # a factory: it never sees a BatchedTensor
    if "pointwise" in f.tags:
        return BatchingRule(f.full_name, "pointwise")
    if tensors[0].type.is_list:
        names = {a.name for a in others}
        return BatchingRule(f.full_name, "cat") if names == {"dim"} and len(tensors) == 1 else None
    if any(a.type.is_list for a in tensors):
        return None
    names = {a.name for a in others}
    if "reduction" in f.tags and not names & {"dim", "dims"}:
        return None
    if names <= DIMS_SAFE_ARGUMENTS:
        return BatchingRule(f.full_name, "dims")
    return None


def batching_rules(registry: Registry) -> list[BatchingRule]:
    rules = []
    for f in registry.functions:
        rule = rule_of(f)
        if rule is not None:
            rules.append(rule)
    return rules

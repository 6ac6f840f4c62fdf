"""tg.jit: graph capture from Python, over the C++ program level (tg::jit, docs/graph.md).

    graph = tg.jit.trace(fn, (x, w))      # runs fn once and records the operators it calls
    graph.save("fn.yaml")                 # the YAML format that tg-graph and tools/export_onnx.py read
    graph = tg.jit.load("fn.yaml")
    y = graph(x2, w2)                     # runs on a StaticModule (planned memory, out= kernels)
    y = tg.jit.StaticModule(graph)(x2, w2)

A graph holds only operator calls: Python control flow is unrolled for the example inputs, and
what a graph cannot hold (reading a tensor's value, a tensor that is neither an input nor made
inside the function) raises tensorgen.Error naming it.
"""

from __future__ import annotations

import os
from typing import Callable, Optional, Sequence, Union

import tensorgen._C as _C
from tensorgen._C import Tensor

__all__ = ["Graph", "StaticModule", "load", "trace", "trace_module"]

Outputs = Union[Tensor, tuple[Tensor, ...]]


def _outputs(values: list[Tensor]) -> Outputs:
    return values[0] if len(values) == 1 else tuple(values)


class Graph:
    """A captured program: inputs (named), operator nodes, outputs. Calling it runs it on a
    StaticModule made at the first call; it returns a Tensor when the graph has one output,
    else a tuple."""

    def __init__(self, graph: _C._JitGraph) -> None:
        self._graph = graph
        self._module: Optional[StaticModule] = None

    def save(self, path: Union[str, os.PathLike[str]]) -> None:
        self._graph.save(os.fspath(path))

    @property
    def input_names(self) -> list[str]:
        return list(self._graph.input_names)

    @property
    def num_outputs(self) -> int:
        return int(self._graph.num_outputs)

    @property
    def nodes(self) -> list[str]:
        """The operator of each node, in execution order ("tg::mul.Tensor", ...)."""
        return list(self._graph.node_ops)

    def run(self, *inputs: Tensor) -> Outputs:
        if self._module is None:
            self._module = StaticModule(self)
        return self._module(*inputs)

    __call__ = run

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Graph) and bool(self._graph == other._graph)

    __hash__ = None  # type: ignore[assignment]  (mutable-looking value type, as lists)

    def __str__(self) -> str:
        return str(self._graph.to_yaml())

    def __repr__(self) -> str:
        return f"<tensorgen.jit.Graph: {len(self.input_names)} inputs, {len(self.nodes)} nodes, {self.num_outputs} outputs>"


class StaticModule:
    """Runs a Graph with each node's kernel resolved once and intermediates in one planned
    arena (tg::jit::StaticModule). The first call with a new input signature profiles and
    plans; later calls with it take no memory from the allocator for intermediates."""

    def __init__(self, graph: Graph) -> None:
        if not isinstance(graph, Graph):
            raise TypeError(f"[jit.StaticModule] expected a tensorgen.jit.Graph, got {type(graph).__name__}")
        self._module = _C._JitStaticModule(graph._graph)

    def __call__(self, *inputs: Tensor) -> Outputs:
        return _outputs(self._module.run(list(inputs)))

    run = __call__

    @property
    def num_plans(self) -> int:
        return int(self._module.num_plans)

    @property
    def num_out_variant_nodes(self) -> int:
        return int(self._module.num_out_variant_nodes)


def _as_inputs(example_inputs: Union[Tensor, Sequence[Tensor]]) -> list[Tensor]:
    inputs = [example_inputs] if isinstance(example_inputs, Tensor) else list(example_inputs)
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"[jit.trace] example input {i} must be a Tensor, got {type(t).__name__}")
    return inputs


def trace(fn: Callable[..., Outputs], example_inputs: Union[Tensor, Sequence[Tensor]],
          input_names: Optional[Sequence[str]] = None) -> Graph:
    """Runs fn(*example_inputs) once and returns the graph of the operators it called. fn must
    return a Tensor or a tuple or list of Tensors. Inputs are named input_names, else input0..."""
    if not callable(fn):
        raise TypeError(f"[jit.trace] expected a callable, got {type(fn).__name__}")
    return Graph(_C._jit_trace(fn, _as_inputs(example_inputs), list(input_names or [])))


def trace_module(module: object, example_inputs: Union[Tensor, Sequence[Tensor]]) -> Graph:
    """Traces module(*example_inputs) with the module's parameters and buffers as the graph's
    first inputs, named by their dotted paths ("0.weight"), as tg::jit::trace_module does; the
    data inputs follow as input0... Run the graph with the state tensors first."""
    from tensorgen.nn import Module
    if not isinstance(module, Module):
        raise TypeError(f"[jit.trace_module] expected a tensorgen.nn.Module, got {type(module).__name__}")
    state = list(module.named_parameters()) + list(module.named_buffers())
    inputs = _as_inputs(example_inputs)
    names = [name for name, _ in state] + [f"input{i}" for i in range(len(inputs))]
    n = len(state)
    return trace(lambda *tensors: module(*tensors[n:]), [t for _, t in state] + inputs, names)


def load(path: Union[str, os.PathLike[str]]) -> Graph:
    """Reads a graph saved by Graph.save (or tg::jit::Graph::save). A malformed file raises
    ValueError with file:line:column."""
    return Graph(_C._jit_load(os.fspath(path)))

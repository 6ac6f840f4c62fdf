"""tg.jit: tracing Python functions into graphs, save/load, and the static runtime, against
eager results (docs/python.md, docs/graph.md)."""

import numpy as np
import pytest

import tensorgen as tg
from tensorgen import nn


def mlp(x, w1, b1, w2):
    return tg.matmul(tg.relu(tg.matmul(x, w1) + b1), w2).softmax(-1)


def inputs(batch=4):
    return tg.randn(batch, 8), tg.randn(8, 16), tg.randn(16), tg.randn(16, 3)


def assert_same(a, b):
    np.testing.assert_array_equal(a.numpy(), b.numpy())  # the static runtime runs the same kernels


def test_trace_runs_like_eager_on_new_inputs():
    graph = tg.jit.trace(mlp, inputs(), input_names=["x", "w1", "b1", "w2"])
    assert graph.input_names == ["x", "w1", "b1", "w2"] and graph.num_outputs == 1
    assert "tg::relu" in graph.nodes and len(graph.nodes) >= 5
    for batch in (4, 9):  # recorded shapes are the example's; the runtime re-plans per signature
        args = inputs(batch)
        assert_same(graph(*args), mlp(*args))


def test_multiple_outputs_and_default_names():
    graph = tg.jit.trace(lambda a, b: (a + b, a * b, (a - b).exp()), (tg.randn(3), tg.randn(3)))
    assert graph.input_names == ["input0", "input1"]
    a, b = tg.randn(3), tg.randn(3)
    out = graph.run(a, b)
    assert isinstance(out, tuple) and len(out) == 3
    for got, want in zip(out, (a + b, a * b, (a - b).exp())):
        assert_same(got, want)


def test_save_load_round_trip(tmp_path):
    graph = tg.jit.trace(mlp, inputs())
    path = tmp_path / "mlp.yaml"
    graph.save(path)
    assert path.read_text().startswith("format: tensorgen-graph/1") and str(graph) == path.read_text()
    loaded = tg.jit.load(path)
    assert loaded == graph and loaded is not graph
    args = inputs(5)
    assert_same(loaded(*args), mlp(*args))


def test_static_module_plans_once_per_signature():
    graph = tg.jit.trace(mlp, inputs())
    module = tg.jit.StaticModule(graph)
    args = inputs()
    for _ in range(3):
        assert_same(module(*args), mlp(*args))
    assert module.num_plans == 1 and module.num_out_variant_nodes > 0
    module(*inputs(7))
    assert module.num_plans == 2


def test_trace_module_names_the_state_inputs():
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    x = tg.randn(4, 8)
    graph = tg.jit.trace_module(model, x)
    assert graph.input_names == ["0.weight", "0.bias", "2.weight", "2.bias", "input0"]
    state = [p for p in model.parameters()]
    x2 = tg.randn(6, 8)
    with tg.no_grad():
        assert_same(graph(*[p.detach() for p in state], x2), model(x2))


def test_a_training_step_with_backward_is_captured():
    def step(x, w):
        loss = (tg.matmul(x, w) ** 2).mean()
        (g,) = tg.autograd.grad(loss, w)
        return loss, g

    x, w = tg.randn(4, 3), tg.randn(3, 2, requires_grad=True)
    graph = tg.jit.trace(step, (x, w))
    loss, g = graph(x, w.detach())
    want_loss, want_g = step(x, w)
    np.testing.assert_allclose(loss.numpy(), want_loss.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(g.numpy(), want_g.numpy(), rtol=1e-6)


def test_reading_a_value_while_tracing_is_refused():
    def branchy(x):
        return x * 2 if x.sum() > 0 else x  # bool() reads the data: a graph cannot hold it

    with pytest.raises(tg.Error, match="trac"):
        tg.jit.trace(branchy, tg.ones(3))
    with pytest.raises(tg.Error, match="trac"):
        tg.jit.trace(lambda x: x * x.sum().item(), tg.ones(3))


def test_a_captured_tensor_is_refused_with_its_operator():
    w = tg.ones(3)
    with pytest.raises(tg.Error, match="neither a graph input nor made by a traced operator"):
        tg.jit.trace(lambda x: x * w, tg.ones(3))


def test_bad_functions_and_inputs_give_python_errors():
    with pytest.raises(TypeError, match=r"\[jit.trace\] the traced function must return a Tensor.*got int"):
        tg.jit.trace(lambda x: 3, tg.ones(1))
    with pytest.raises(TypeError, match=r"\[jit.trace\] the traced function must return.*got tuple"):
        tg.jit.trace(lambda x: (x, 2), tg.ones(1))
    with pytest.raises(TypeError, match=r"\[jit.trace\] expected a callable, got int"):
        tg.jit.trace(3, tg.ones(1))
    with pytest.raises(TypeError, match=r"\[jit.trace\] example input 1 must be a Tensor, got list"):
        tg.jit.trace(lambda a, b: a, (tg.ones(1), [1.0]))
    with pytest.raises(TypeError, match=r"\[jit.StaticModule\] expected a tensorgen.jit.Graph"):
        tg.jit.StaticModule("graph.yaml")
    graph = tg.jit.trace(lambda a: a + 1, tg.ones(2))
    with pytest.raises((tg.Error, ValueError), match="input"):
        graph(tg.ones(2), tg.ones(2))


def test_an_exception_in_the_function_propagates_and_tracing_ends():
    def fails(x):
        x = x * 2
        raise KeyError("from the traced function")

    with pytest.raises(KeyError, match="from the traced function"):
        tg.jit.trace(fails, tg.ones(2))
    w = tg.ones(2)
    assert (w * 3).tolist() == [3.0, 3.0]  # eager again: nothing left of the trace
    assert tg.jit.trace(lambda x: x * 3, tg.ones(2))(w).tolist() == [3.0, 3.0]


def test_loading_a_malformed_file_names_the_place(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("format: tensorgen-graph/1\ninputs: []\nnodes:\n  - op: tg::add.Tensr\n    args: {}\noutputs: []\n")
    with pytest.raises(ValueError, match=r"bad.yaml:\d+:\d+: unknown operator 'tg::add.Tensr'"):
        tg.jit.load(path)

"""Per-operator cases generated from the schemas (schema_cases.py): tensorgen against NumPy
evaluating each overload's `reference`, and against torch where torch is installed."""

import numpy as np
import pytest

import tensorgen as tg
from schema_cases import cases, run_case

CASES = cases()
TOLERANCE = {"float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-10, atol=1e-12)}


def test_the_schemas_give_cases():
    names = {c.function.full_name for c in CASES}
    # The pointwise families: arithmetic, comparison, unary math and activations.
    assert {"add.Tensor", "mul.Scalar", "eq.Tensor", "exp", "sigmoid", "where.self"} <= names


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_operator_matches_numpy(case, dtype):
    result, expected = run_case(case, dtype, tg)
    assert tuple(result.shape) == expected.shape
    actual = result.numpy()
    if expected.dtype == np.bool_:
        assert result.dtype == tg.bool
        np.testing.assert_array_equal(actual, expected)
    else:
        np.testing.assert_allclose(actual.astype(np.float64), expected, **TOLERANCE[dtype])


@pytest.mark.parametrize("case", [c for c in CASES if c.name.endswith("-same")], ids=lambda c: c.name)
def test_operator_matches_torch(case):
    torch = pytest.importorskip("torch", reason="torch is not installed (the NumPy comparison still runs)")
    result, _ = run_case(case, "float64", tg)
    args = []
    import schema_cases
    rerun = schema_cases.run_case(case, "float64", _TorchShim(torch, args))
    np.testing.assert_allclose(result.numpy(), rerun[0].numpy(), rtol=1e-10, atol=1e-12)


class _TorchShim:
    """Stands in for the tensorgen module in run_case, so the same inputs go to torch."""

    def __init__(self, torch, log):
        self.torch = torch

    def tensor(self, values):
        return self.torch.tensor(values)

    def __getattr__(self, name):
        # A public torch function where there is one, else the ATen operator of the same
        # schema name (gelu, silu and the *_backward operators are only in torch.ops.aten).
        try:
            return getattr(self.torch, name)
        except AttributeError:
            return getattr(self.torch.ops.aten, name)


# dtype promotion, PyTorch's rules: within a category the wider type; across categories
# (bool < integral < floating) the type of the higher category.
PROMOTIONS = [
    ("int64", "float32", "float32"), ("float32", "float64", "float64"), ("int32", "int64", "int64"),
    ("bool", "int32", "int32"), ("uint8", "int8", "int16"), ("float16", "float32", "float32"),
    ("int8", "float16", "float16"),
]


@pytest.mark.parametrize("name", ["add", "sub", "mul"])
@pytest.mark.parametrize("left,right,expected", PROMOTIONS)
def test_binary_dtype_promotion(name, left, right, expected):
    if name == "sub" and "bool" in (left, right):
        pytest.skip("subtracting bool tensors is an error in PyTorch (tested in test_errors)")
    a = tg.tensor(np.arange(6).reshape(2, 3) % 2 == 0 if left == "bool" else np.arange(6).reshape(2, 3).astype(left))
    b = tg.tensor(np.ones((3,), dtype=right))
    result = getattr(tg, name)(a, b)
    assert result.dtype == getattr(tg, expected)
    np.testing.assert_allclose(result.numpy().astype(np.float64),
                               getattr(np, {"add": "add", "sub": "subtract", "mul": "multiply"}[name])(
                                   a.numpy().astype(np.float64), b.numpy().astype(np.float64)))


def test_scalar_does_not_promote_a_tensor_of_its_category():
    t = tg.tensor(np.ones(3, dtype=np.float32))
    assert (t + 2.5).dtype == tg.float32
    assert (tg.tensor([1, 2]) * 2).dtype == tg.int64
    assert (tg.tensor([1, 2]) * 2.5).dtype == tg.float32  # int tensor, float Scalar: the default dtype

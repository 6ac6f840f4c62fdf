"""The function transforms from Python (tg.func), against hand-derived results."""

import numpy as np
import pytest

import tensorgen as tg


def test_grad_of_a_python_function():
    f = lambda x: (x * x * x).sum()
    x = tg.tensor([1.0, 2.0])
    assert tg.func.grad(f)(x).tolist() == [3.0, 12.0]
    value = tg.func.grad_and_value(f)(x)[1]
    assert value.item() == 9.0


def test_vmap_of_grad_gives_per_sample_gradients():
    w = tg.tensor([1.0, -2.0, 0.5])
    loss = lambda x: (x * w).sum() ** 2
    xs = tg.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    per_sample = tg.func.vmap(tg.func.grad(loss))(xs)
    expected = [2 * float((row * w.numpy()).sum()) * w.numpy() for row in xs.numpy()]
    np.testing.assert_allclose(per_sample.numpy(), np.stack(expected), rtol=1e-6)


def test_jvp_vjp_and_jacobians():
    f = lambda x: x.sin() if hasattr(x, "sin") else x * x
    g = lambda x: x * x
    x = tg.tensor([1.0, 3.0])
    out, tangent = tg.func.jvp(g, [x], [tg.ones(2)])
    assert out.tolist() == [1.0, 9.0] and tangent.tolist() == [2.0, 6.0]
    out, pullback = tg.func.vjp(g, x)
    (cotangent,) = pullback(tg.ones(2))
    assert cotangent.tolist() == [2.0, 6.0]
    assert tg.func.jacrev(g)(x).tolist() == [[2.0, 0.0], [0.0, 6.0]]
    assert tg.func.jacfwd(g)(x).tolist() == [[2.0, 0.0], [0.0, 6.0]]
    del f


def test_a_function_that_returns_no_tensor_is_a_type_error():
    with pytest.raises(TypeError, match="must return one Tensor"):
        tg.func.grad(lambda x: 3)(tg.ones(1))

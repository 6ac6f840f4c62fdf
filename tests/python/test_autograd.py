"""Autograd from Python: backward, tg.autograd.grad, grad modes, hooks, retain_grad."""

import numpy as np
import pytest

import tensorgen as tg


def test_backward_matches_the_analytic_gradient():
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x + 3 * x).sum()
    assert y.grad_fn is not None and y.grad_fn.name().endswith("Backward0") and not y.is_leaf
    y.backward()
    assert x.grad.tolist() == [5.0, 7.0, 9.0]
    (x * 2).sum().backward()  # accumulates
    assert x.grad.tolist() == [7.0, 9.0, 11.0]


def test_backward_with_gradient_and_retain_graph():
    x = tg.ones(2, 2, requires_grad=True)
    y = x * 3
    y.backward(tg.full((2, 2), 2.0), retain_graph=True)
    y.backward(tg.ones(2, 2))
    assert x.grad.tolist() == [[9.0, 9.0], [9.0, 9.0]]
    with pytest.raises(tg.Error, match="second time"):
        y.backward(tg.ones(2, 2))


def test_autograd_grad_and_higher_order():
    x = tg.tensor([2.0], requires_grad=True)
    y = x ** 3
    (dy,) = tg.autograd.grad(y, x, create_graph=True)
    assert dy.tolist() == [12.0]
    (d2y,) = tg.autograd.grad(dy, x)
    assert d2y.tolist() == [12.0]
    assert x.grad is None  # grad() does not accumulate


def test_autograd_grad_allow_unused():
    x, z = tg.ones(1, requires_grad=True), tg.ones(1, requires_grad=True)
    gx, gz = tg.autograd.grad((x * 2).sum(), [x, z], allow_unused=True)
    assert gx.tolist() == [2.0] and gz is None
    with pytest.raises(tg.Error):
        tg.autograd.grad((x * 2).sum(), [x, z])


def test_no_grad_and_enable_grad():
    x = tg.ones(2, requires_grad=True)
    with tg.no_grad():
        assert not tg.is_grad_enabled()
        y = x * 2
        with tg.enable_grad():
            z = x * 2
    assert tg.is_grad_enabled()
    assert not y.requires_grad and z.requires_grad

    @tg.no_grad()
    def doubled(t):
        return t * 2
    assert not doubled(x).requires_grad

    with pytest.raises(ZeroDivisionError):
        with tg.no_grad():
            1 / 0
    assert tg.is_grad_enabled()  # restored when the block raises
    with tg.set_grad_enabled(False):
        assert not (x * 1).requires_grad
    assert tg.is_grad_enabled()


def test_hooks_see_and_replace_gradients():
    x = tg.ones(3, requires_grad=True)
    seen = []
    handle = x.register_hook(lambda g: seen.append(g.tolist()))
    x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    assert seen == [[2.0, 2.0, 2.0]] and x.grad.tolist() == [20.0, 20.0, 20.0]
    handle.remove()
    x.grad = None
    (x * 2).sum().backward()
    assert len(seen) == 1


def test_a_hook_that_raises_propagates_its_exception():
    x = tg.ones(1, requires_grad=True)

    def bad(grad):
        raise KeyError("from the hook")
    x.register_hook(bad)
    with pytest.raises(Exception, match="from the hook"):
        (x * 2).sum().backward()


def test_retain_grad_on_a_non_leaf():
    x = tg.ones(2, requires_grad=True)
    y = x * 3
    y.retain_grad()
    assert y.retains_grad
    (y * y).sum().backward()
    assert y.grad.tolist() == [6.0, 6.0]
    assert x.grad.tolist() == [18.0, 18.0]


def test_detach_and_requires_grad_setter():
    x = tg.ones(2, requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.is_leaf
    d.requires_grad = True
    assert d.requires_grad
    with pytest.raises(tg.Error, match="leaf|requires_grad"):
        (x * 2).requires_grad_(False)


def test_gradient_of_a_chain_against_finite_differences():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(3, 4))
    x = tg.tensor(a, requires_grad=True)
    (x.tanh() * x.sigmoid()).sum().backward()
    h = 1e-6
    numeric = np.zeros_like(a)
    f = lambda v: float(np.sum(np.tanh(v) / (1 + np.exp(-v))))
    for i in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[i] = h
        numeric[i] = (f(a + e) - f(a - e)) / (2 * h)
    np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-6, atol=1e-8)

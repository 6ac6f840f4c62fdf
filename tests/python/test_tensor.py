"""The Tensor type from Python: attributes, argument parsing, Python operators, indexing."""

import numpy as np
import pytest

import tensorgen as tg


def test_attributes():
    t = tg.zeros(2, 3, dtype=tg.float64)
    assert t.shape == (2, 3) and t.size() == (2, 3) and t.size(1) == 3 and t.size(-1) == 3
    assert t.dtype is tg.float64 and repr(t.dtype) == "tensorgen.float64"
    assert t.device == tg.device("cpu") and t.device == "cpu" and t.device.type == "cpu"
    assert t.dim() == 2 and t.ndim == 2 and t.numel() == 6
    assert not t.requires_grad and t.is_leaf and t.grad is None and t.grad_fn is None
    assert t.stride() == [3, 1] and t.is_contiguous()


def test_pinned_memory():
    """pin_memory needs a CUDA device: without one (CI) asking for it is a tensorgen.Error."""
    t = tg.ones(2)
    assert not t.is_pinned()
    try:
        pinned = t.pin_memory()
    except RuntimeError as error:
        assert "[pin_memory] pin_memory=true" in str(error)
        with pytest.raises(RuntimeError, match=r"\[zeros\] pin_memory=true"):
            tg.zeros(2, pin_memory=True)
    else:  # a machine with a GPU
        assert pinned.is_pinned() and pinned.tolist() == [1.0, 1.0]
        assert tg.zeros(2, pin_memory=True).is_pinned()


def test_factories_positional_keyword_and_varargs_sizes():
    assert tg.ones([2, 3]).shape == (2, 3)
    assert tg.ones((2, 3)).shape == (2, 3)
    assert tg.ones(size=[4]).shape == (4,)
    assert tg.full((2, 2), 7.0).numpy().tolist() == [[7.0, 7.0], [7.0, 7.0]]
    t = tg.zeros(3, requires_grad=True)
    assert t.requires_grad and t.is_leaf
    assert tg.arange(5).dtype is tg.int64 and tg.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert tg.arange(1, 4, dtype=tg.float32).tolist() == [1.0, 2.0, 3.0]


def test_methods_defaults_optional_and_int_lists():
    t = tg.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    assert t.sum().item() == 276.0
    assert t.sum(0).shape == (3, 4)
    assert t.sum([0, 2]).shape == (3,)
    assert t.sum(dim=1, keepdim=True).shape == (2, 1, 4)
    assert t.sum(dtype=tg.float64).dtype is tg.float64
    assert t.view(6, 4).shape == (6, 4) and t.view([4, 6]).shape == (4, 6)
    assert t.permute(2, 0, 1).shape == (4, 2, 3)
    assert t.clamp(min=3.0).min_value() if hasattr(t, "min_value") else t.clamp(min=3.0).amin().item() == 3.0
    assert t.clamp(None, 5).amax().item() == 5.0
    values, indices = t.max(1)
    assert values.shape == (2, 4) and indices.dtype is tg.int64


def test_out_argument_returns_the_out_object():
    a, b = tg.ones(3), tg.ones(3)
    out = tg.empty([3])
    result = tg.add(a, b, out=out)
    assert result is out and out.tolist() == [2.0, 2.0, 2.0]


def test_inplace_methods_return_self():
    t = tg.ones(3)
    assert t.add_(1) is t and t.tolist() == [2.0, 2.0, 2.0]
    before = t
    t += 1
    assert t is before and t.tolist() == [3.0, 3.0, 3.0]
    t *= 2
    t -= 1
    t /= 5
    assert t.tolist() == [1.0, 1.0, 1.0]


def test_python_operators():
    a = tg.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = tg.tensor([10.0, 20.0])
    assert (a + b).tolist() == [[11.0, 22.0], [13.0, 24.0]]
    assert (a - 1).tolist() == [[0.0, 1.0], [2.0, 3.0]]
    assert (1 - a).tolist() == [[0.0, -1.0], [-2.0, -3.0]]
    assert (2 * a).tolist() == (a * 2).tolist() == (a + a).tolist()
    assert (a / 2).tolist() == [[0.5, 1.0], [1.5, 2.0]]
    np.testing.assert_allclose((8 / a).numpy(), [[8.0, 4.0], [8 / 3, 2.0]], rtol=1e-6)
    assert (a @ a).tolist() == [[7.0, 10.0], [15.0, 22.0]]
    assert (-a).tolist() == [[-1.0, -2.0], [-3.0, -4.0]]
    assert abs(-a).tolist() == a.tolist()
    assert (a ** 2).tolist() == [[1.0, 4.0], [9.0, 16.0]]
    assert (2 ** tg.tensor([1.0, 3.0])).tolist() == [2.0, 8.0]
    assert (a > 2).tolist() == [[False, False], [True, True]]
    assert (a <= 2).dtype is tg.bool
    assert (a == a).all().item() is True
    assert (a != 1).tolist() == [[False, True], [True, True]]
    assert (a == None) is False  # noqa: E711  (not an operand: Python's identity comparison)
    assert bool(tg.tensor([1.0])) and float(tg.tensor(2.5)) == 2.5 and int(tg.tensor(3)) == 3
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(a)


def test_indexing_reads():
    t = tg.tensor(np.arange(24).reshape(2, 3, 4))
    n = np.arange(24).reshape(2, 3, 4)
    for index in [0, -1, (1, 2), (slice(None), 1), (0, slice(1, None), slice(None, None, 2)), (Ellipsis, 0),
                  (None, 0), (0, None, Ellipsis, None), slice(None, None, -1) if False else slice(0, 1),
                  ([0, 1],), (1, [2, 0])]:
        np.testing.assert_array_equal(t[index].numpy(), n[index], err_msg=str(index))
    mask = t > 10
    np.testing.assert_array_equal(t[mask].numpy(), n[n > 10])


def test_indexing_writes_and_views():
    t = tg.zeros(3, 4)
    t[0] = 1.0
    t[:, 1] = tg.tensor([5.0, 6.0, 7.0])
    t[2, 2:] = 9
    assert t.tolist() == [[1.0, 5.0, 1.0, 1.0], [0.0, 6.0, 0.0, 0.0], [0.0, 7.0, 9.0, 9.0]]
    row = t[1]
    row.fill_(2.0)  # a basic index is a view
    assert t[1].tolist() == [2.0] * 4
    with pytest.raises(IndexError):
        t[3]
    with pytest.raises(TypeError, match="valid indices"):
        t["a"]


def test_len_iter_repr_and_tolist():
    t = tg.tensor([[1, 2], [3, 4]])
    assert len(t) == 2 and [r.tolist() for r in t] == [[1, 2], [3, 4]]
    assert repr(t) == "tensor([[1, 2],\n        [3, 4]])"
    assert "requires_grad=True" in repr(tg.ones(2, requires_grad=True))
    assert "grad_fn=<" in repr(tg.ones(2, requires_grad=True) * 2)
    assert tg.tensor(3.5).item() == 3.5 and isinstance(tg.tensor(3).item(), int)


def test_to_and_casts():
    t = tg.tensor([1.5, 2.5])
    assert t.to(tg.float64).dtype is tg.float64
    assert t.to("cpu").device.type == "cpu"
    assert t.to(dtype=tg.int64).tolist() == [1, 2]
    assert t.long().dtype is tg.int64 and t.double().dtype is tg.float64 and t.int().dtype is tg.int32
    assert t.to(tg.ones(1, dtype=tg.float16)).dtype is tg.float16


def test_errors_keep_the_core_message():
    with pytest.raises(ValueError, match=r"^\[mm\] mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"):
        tg.ones(2, 3) @ tg.ones(2, 3)
    with pytest.raises(tg.Error):
        tg.ones(2, 3).view(7)
    with pytest.raises(IndexError):
        tg.ones(2, 3).sum(5)
    with pytest.raises(ValueError, match="cuda|device"):
        tg.ones(2, device="gpu:0")

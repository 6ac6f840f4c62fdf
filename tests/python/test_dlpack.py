"""Interop: DLPack 1.x both ways without copies, with NumPy and (where installed) torch."""

import gc

import numpy as np
import pytest

import tensorgen as tg


def test_numpy_shares_memory_with_the_tensor():
    t = tg.arange(6, dtype=tg.float32).view(2, 3)
    a = t.numpy()
    assert a.dtype == np.float32 and a.shape == (2, 3)
    t.add_(1)
    assert a[0, 0] == 1.0  # the same memory
    assert a.ctypes.data == t.data_ptr()


def test_numpy_of_a_view_keeps_its_strides():
    t = tg.arange(12).view(3, 4).t()
    a = t.numpy()
    np.testing.assert_array_equal(a, np.arange(12).reshape(3, 4).T)
    assert a.strides == (8, 32)


def test_numpy_refuses_what_it_cannot_share():
    with pytest.raises(RuntimeError, match="requires grad"):
        tg.ones(2, requires_grad=True).numpy()
    with pytest.raises(TypeError, match="bfloat16"):
        tg.ones(2, dtype=tg.bfloat16).numpy()


def test_from_numpy_is_zero_copy_and_keeps_the_array_alive():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = tg.from_numpy(a)
    assert t.dtype is tg.float64 and t.shape == (2, 3) and t.data_ptr() == a.ctypes.data
    a[1, 2] = 42.0
    assert t[1, 2].item() == 42.0
    del a
    gc.collect()
    assert t[1, 2].item() == 42.0  # the tensor owns the producer's capsule


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"])
def test_round_trip_every_dtype(dtype):
    a = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    t = tg.from_dlpack(a)
    assert t.dtype is getattr(tg, {"bool": "bool"}.get(dtype, dtype))
    back = np.from_dlpack(t)
    np.testing.assert_array_equal(back, a)
    assert back.ctypes.data == a.ctypes.data


def test_sliced_strides_from_numpy():
    a = np.arange(20, dtype=np.float32).reshape(4, 5)[1:, 1::2]
    t = tg.from_dlpack(a)
    assert t.stride() == [5, 2]
    np.testing.assert_array_equal(t.numpy(), a)
    np.testing.assert_array_equal((t * 2).numpy(), a * 2)


def test_negative_strides_are_refused_and_the_capsule_stays_the_producers():
    a = np.arange(20, dtype=np.float32).reshape(4, 5)[::-1]
    capsule = a.__dlpack__()
    with pytest.raises(ValueError, match="negative strides"):
        tg.from_dlpack(capsule)
    del capsule
    gc.collect()  # the producer's deleter runs once, from the capsule
    np.testing.assert_array_equal(a[0], [15, 16, 17, 18, 19])


def test_dlpack_protocol_attributes():
    t = tg.ones(2)
    assert t.__dlpack_device__() == (1, 0)
    legacy = t.__dlpack__()
    assert "dltensor" in repr(legacy)
    versioned = t.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(versioned)
    assert tg.from_dlpack(versioned).tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="capsule"):
        tg.from_dlpack(versioned)  # consumed once already
    with pytest.raises(ValueError, match="copy=True"):
        t.__dlpack__(copy=True)


def test_tensor_from_python_data():
    assert tg.tensor([1.0, 2.0]).dtype is tg.float32
    assert tg.tensor([1, 2]).dtype is tg.int64
    assert tg.tensor([True, False]).dtype is tg.bool
    assert tg.tensor(np.ones(2)).dtype is tg.float64
    assert tg.tensor([[1, 2], [3, 4]], dtype=tg.float64).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    a = np.ones(3, dtype=np.float32)
    t = tg.tensor(a)
    a[0] = 5
    assert t[0].item() == 1.0  # tensor() copies
    with pytest.raises(ValueError, match="equal length"):
        tg.tensor([[1, 2], [3]])
    with pytest.raises(TypeError, match="objects"):
        tg.tensor([object()])


def test_torch_round_trip():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    a = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    t = tg.from_dlpack(a)
    assert t.data_ptr() == a.data_ptr()
    back = torch.from_dlpack(t)
    assert back.data_ptr() == a.data_ptr() and torch.equal(back, a)

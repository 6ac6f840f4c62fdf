"""The Tensor methods written in Python: those PyTorch users expect that are not operators of
the schemas (size(), tolist(), numpy(), repr), the reflected operators, and the conversions
from Python data (tg.tensor, tg.from_numpy, tg.from_dlpack).

The hot operators (`a + b`, `a @ b`, `t[i]`, ...) are not here: they alias the generated
methods in C++ (see bind_operators and docs/python.md)."""

from __future__ import annotations

from typing import Any, Iterator, Optional, Union

import numpy as np

from tensorgen import _C
from tensorgen._C import Tensor

__all__ = ["tensor", "from_numpy", "from_dlpack"]

_NUMPY_DTYPES = {
    np.dtype("bool"): _C.bool, np.dtype("uint8"): _C.uint8, np.dtype("int8"): _C.int8,
    np.dtype("int16"): _C.int16, np.dtype("int32"): _C.int32, np.dtype("int64"): _C.int64,
    np.dtype("float16"): _C.float16, np.dtype("float32"): _C.float32, np.dtype("float64"): _C.float64,
}


def from_dlpack(obj: Any) -> Tensor:
    """A tensor over the memory of any DLPack producer (NumPy, torch, ...), without a copy."""
    if hasattr(obj, "__dlpack__"):
        try:
            capsule = obj.__dlpack__(max_version=(1, 0))
        except TypeError:  # a producer older than DLPack 1.0 takes no max_version
            capsule = obj.__dlpack__()
    else:
        capsule = obj
    return _C._from_dlpack_capsule(capsule)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing `array`'s memory (as torch.from_numpy)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"[from_numpy] expected np.ndarray, got {type(array).__name__}")
    if array.dtype not in _NUMPY_DTYPES:
        raise TypeError(f"[from_numpy] NumPy dtype {array.dtype} is not supported; tensorgen holds "
                        + ", ".join(str(d) for d in _NUMPY_DTYPES))
    if not array.flags.writeable:
        raise ValueError("[from_numpy] the array is read-only; a tensor over it could be written: pass array.copy()")
    return from_dlpack(array)


def tensor(data: Any, *, dtype: Optional[_C.dtype] = None, device: Union[_C.device, str, None] = None,
           requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of `data` (nested lists of numbers, a NumPy array, a Tensor).
    As in PyTorch, Python floats make float32 and ints int64 unless `dtype` is given."""
    if isinstance(data, Tensor):
        result = data.detach().clone()
    else:
        try:
            array = np.asarray(data)
        except ValueError as error:  # ragged nesting
            raise ValueError(f"[tensor] expected nested sequences of equal length (as PyTorch): {error}") from None
        if array.dtype == object:
            raise TypeError("[tensor] expected numbers or nested sequences of equal length, got "
                            f"{type(data).__name__} that NumPy reads as objects")
        if not isinstance(data, (np.ndarray, np.generic)) and array.dtype == np.float64:
            array = array.astype(np.float32)  # the default dtype, as torch.tensor
        if array.dtype not in _NUMPY_DTYPES:
            raise TypeError(f"[tensor] NumPy dtype {array.dtype} is not supported")
        if not array.flags.c_contiguous:  # (np.ascontiguousarray would make a 0-d array 1-d)
            array = np.ascontiguousarray(array)
        result = from_dlpack(array).clone()
    if dtype is not None or device is not None:
        result = result.to(dtype=dtype, device=device)
    if requires_grad:
        result.requires_grad_(True)
    return result


def _numpy(self: Tensor) -> np.ndarray:
    """A NumPy array sharing this CPU tensor's memory."""
    if self.requires_grad:
        raise RuntimeError("[numpy] Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    if self.device.type != "cpu":
        raise TypeError(f"[numpy] can't convert {self.device} tensor to numpy: copy it to the CPU first with .cpu()")
    if self.dtype == _C.bfloat16:
        raise TypeError("[numpy] NumPy has no bfloat16: convert with .float() first")
    return np.from_dlpack(self)


def _tolist(self: Tensor) -> Any:
    t = self.detach().cpu()
    if t.dtype == _C.bfloat16:
        t = t.float()
    return t.numpy().tolist()


def _size(self: Tensor, dim: Optional[int] = None) -> Any:
    shape = self.shape
    if dim is None:
        return shape
    if not -len(shape) <= dim < max(len(shape), 1):
        raise IndexError(f"[size] Dimension out of range (expected to be in range of "
                         f"[{-len(shape)}, {len(shape) - 1}], but got {dim})")
    return shape[dim]


def _repr(self: Tensor) -> str:
    t = self.detach().cpu()
    if t.dtype in (_C.bfloat16, _C.float16):
        t = t.float()
    body = np.array2string(t.numpy(), separator=", ", prefix="tensor(")
    extras = []
    if self.dtype not in (_C.float32, _C.int64, _C.bool):
        extras.append(f"dtype={self.dtype!r}")
    if self.device.type != "cpu":
        extras.append(f"device='{self.device}'")
    if self.grad_fn is not None:
        extras.append(f"grad_fn=<{self.grad_fn.name()}>")
    elif self.requires_grad:
        extras.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + e for e in extras) + ")"


def _iter(self: Tensor) -> Iterator[Tensor]:
    if self.dim() == 0:
        raise TypeError("[iter] iteration over a 0-d tensor")
    return (self[i] for i in range(self.shape[0]))


def _bool(self: Tensor) -> bool:
    if self.numel() != 1:
        raise RuntimeError(f"[bool] Boolean value of Tensor with {self.numel()} values is ambiguous")
    return bool(self.item())


def _is_operand(other: Any) -> bool:
    return isinstance(other, (Tensor, bool, int, float))


def _eq(self: Tensor, other: Any) -> Any:
    return self.eq(other) if _is_operand(other) else NotImplemented


def _ne(self: Tensor, other: Any) -> Any:
    return self.ne(other) if _is_operand(other) else NotImplemented


def _rsub(self: Tensor, other: Any) -> Tensor:
    return self.neg().add(other)


def _rtruediv(self: Tensor, other: Any) -> Tensor:
    return tensor(other).to(device=self.device).div(self)


def _rpow(self: Tensor, other: Any) -> Tensor:
    return _C.pow(other, self)


def _to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """to(dtype), to(device), to(other), to(device, dtype), and keyword forms."""
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    for a in args:
        if isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, (_C.device, str)):
            device = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        else:
            raise TypeError(f"[to] expected a dtype, a device or a Tensor, got {type(a).__name__}")
    return _C.Tensor._to_generated(self, dtype=dtype, device=device, **kwargs)


def _make_cast(dtype: _C.dtype) -> Any:
    def cast(self: Tensor) -> Tensor:
        return self.to(dtype=dtype)
    return cast


def _install() -> None:
    T = Tensor
    # `to` from the schemas takes dtype and device only as keywords (to.dtype_layout); the
    # Python form also takes them positionally.
    T._to_generated = T.to
    T.to = _to
    T.numpy = _numpy
    T.tolist = _tolist
    T.size = _size
    T.__repr__ = _repr
    T.__str__ = _repr
    T.__iter__ = _iter
    T.__bool__ = _bool
    T.__float__ = lambda self: float(self.item())
    T.__int__ = lambda self: int(self.item())
    T.__eq__ = _eq
    T.__ne__ = _ne
    T.__hash__ = object.__hash__
    T.__rsub__ = _rsub
    T.__rtruediv__ = _rtruediv
    T.__rpow__ = _rpow
    T.cpu = lambda self: self.to(device="cpu")
    T.cuda = lambda self, device=None: self.to(device="cuda" if device is None else f"cuda:{device}")
    T.float = _make_cast(_C.float32)
    T.double = _make_cast(_C.float64)
    T.half = _make_cast(_C.float16)
    T.long = _make_cast(_C.int64)
    T.int = _make_cast(_C.int32)
    T.bool = _make_cast(_C.bool)
    T.T = property(lambda self: self.t() if self.dim() == 2 else self.permute(*reversed(range(self.dim()))))
    T.data = property(lambda self: self.detach(), lambda self, value: self.set_data(value))
    T.__array__ = lambda self, dtype=None, copy=None: np.asarray(self.numpy(), dtype=dtype)


_install()

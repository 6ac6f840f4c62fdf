"""tensorgen: tensors, autograd and neural networks, with PyTorch's Python API.

The operators are generated from the same YAML schemas as the C++ library: every function
`tg.add(...)` and method `t.add(...)` is one callable over the schema overloads of its name
(see docs/python.md). Errors from the C++ core arrive as TypeError, ValueError, IndexError,
NotImplementedError or tensorgen.Error (a RuntimeError) with the core's message.
"""

from __future__ import annotations

from tensorgen import _C
from tensorgen._C import *  # noqa: F401,F403  (Tensor, dtype, device, the operators)
from tensorgen._C import Error, OutOfMemoryError, Tensor, device, dtype  # noqa: F401
from tensorgen import _tensor  # noqa: F401  (the Python-level Tensor methods)
from tensorgen._tensor import from_dlpack, from_numpy, tensor  # noqa: F401
from tensorgen.autograd import enable_grad, no_grad, set_grad_enabled  # noqa: F401
from tensorgen.serialization import load, save  # noqa: F401
from tensorgen import autograd, func, jit, nn, optim, utils  # noqa: F401

is_grad_enabled = _C.is_grad_enabled
manual_seed = _C.manual_seed

__version__ = "0.1.0"

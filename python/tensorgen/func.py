"""tg.func: the C++ function transforms (tg::func) with torch.func's Python signatures.
They nest: tg.func.vmap(tg.func.grad(loss))(xs) gives per-sample gradients."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

import tensorgen._C as _C
from tensorgen._C import Tensor

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap"]

Fn = Callable[..., Tensor]


def _spread(f: Fn) -> Callable[..., Tensor]:
    return lambda *xs: f(*xs)


def grad_and_value(f: Fn, argnums: int = 0) -> Callable[..., tuple[Tensor, Tensor]]:
    return lambda *args: _C._func_grad_and_value(_spread(f), list(args), argnums)


def grad(f: Fn, argnums: int = 0) -> Fn:
    return lambda *args: _C._func_grad_and_value(_spread(f), list(args), argnums)[0]


def vjp(f: Fn, *primals: Tensor) -> tuple[Tensor, Callable[[Tensor], tuple[Tensor, ...]]]:
    output, pullback = _C._func_vjp(_spread(f), list(primals))
    return output, lambda v: tuple(pullback(v))


def jvp(f: Fn, primals: Sequence[Tensor], tangents: Sequence[Tensor]) -> tuple[Tensor, Tensor]:
    return _C._func_jvp(_spread(f), list(primals), list(tangents))


def jacrev(f: Fn, argnums: int = 0) -> Fn:
    return lambda *args: _C._func_jacrev(_spread(f), list(args), argnums)


def jacfwd(f: Fn, argnums: int = 0) -> Fn:
    return lambda *args: _C._func_jacfwd(_spread(f), list(args), argnums)


def hessian(f: Fn, argnums: int = 0) -> Fn:
    return jacfwd(jacrev(f, argnums), argnums)


def vmap(f: Fn, in_dims: Union[int, None, Sequence[Optional[int]]] = 0, out_dims: int = 0,
         chunk_size: Optional[int] = None) -> Fn:
    def batched(*args: Tensor) -> Tensor:
        dims = list(in_dims) if isinstance(in_dims, (list, tuple)) else [in_dims] * len(args)
        if len(dims) != len(args):
            raise ValueError(f"[vmap] in_dims has {len(dims)} entries for {len(args)} arguments")
        return _C._func_vmap(_spread(f), list(args), dims, out_dims, chunk_size)
    return batched

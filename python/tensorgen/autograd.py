"""tg.autograd: backward, grad, and the grad-mode context managers."""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional, Sequence, TypeVar, Union

from tensorgen import _C
from tensorgen._C import Tensor

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled"]


class _GradMode:
    """Sets grad mode inside a `with` block, or around every call of a decorated function;
    the previous mode is restored on exit, also when the block raises."""

    enabled: bool

    def __enter__(self) -> None:
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(self.enabled)

    def __exit__(self, *exc: object) -> None:
        _C._set_grad_enabled(self._previous)

    def __call__(self, function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.__class__():
                return function(*args, **kwargs)
        return wrapper  # type: ignore[return-value]


class no_grad(_GradMode):
    """Operations inside record no autograd history (as torch.no_grad)."""
    enabled = False


class enable_grad(_GradMode):
    """Turns recording back on inside a no_grad block (as torch.enable_grad)."""
    enabled = True


class set_grad_enabled(_GradMode):
    def __init__(self, mode: bool) -> None:
        self.enabled = bool(mode)
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(self.enabled)  # as PyTorch: it takes effect when constructed

    def __enter__(self) -> None:
        pass

    def __call__(self, function: F) -> F:
        raise TypeError("set_grad_enabled(mode) is a context manager; use no_grad() or enable_grad() as decorators")


def _as_list(tensors: Union[Tensor, Sequence[Tensor]], what: str) -> list[Tensor]:
    if isinstance(tensors, Tensor):
        return [tensors]
    result = list(tensors)
    for t in result:
        if not isinstance(t, Tensor):
            raise TypeError(f"[autograd] {what} must be Tensors, got {type(t).__name__}")
    return result


def backward(tensors: Union[Tensor, Sequence[Tensor]], grad_tensors: Optional[Sequence[Optional[Tensor]]] = None,
             retain_graph: Optional[bool] = None, create_graph: bool = False) -> None:
    """Accumulates the gradients of `tensors` into the .grad of the leaves they depend on."""
    outputs = _as_list(tensors, "tensors")
    grads = list(grad_tensors) if grad_tensors is not None else []
    _C._autograd_backward(outputs, grads, retain_graph, create_graph)


def grad(outputs: Union[Tensor, Sequence[Tensor]], inputs: Union[Tensor, Sequence[Tensor]],
         grad_outputs: Optional[Union[Tensor, Sequence[Optional[Tensor]]]] = None,
         retain_graph: Optional[bool] = None, create_graph: bool = False,
         allow_unused: bool = False) -> tuple[Optional[Tensor], ...]:
    """The gradients of `outputs` with respect to `inputs`, without touching .grad."""
    out = _as_list(outputs, "outputs")
    ins = _as_list(inputs, "inputs")
    if grad_outputs is None:
        gos: list[Optional[Tensor]] = []
    elif isinstance(grad_outputs, Tensor):
        gos = [grad_outputs]
    else:
        gos = list(grad_outputs)
    return tuple(_C._autograd_grad(out, ins, gos, retain_graph, create_graph, allow_unused))

"""tg.optim: the C++ optimizers (SGD, Adam, AdamW, Adagrad, RMSprop) behind PyTorch's
Python interface. Options are the C++ options by name; `betas` is split into beta1, beta2."""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Optional

import tensorgen._C as _C
from tensorgen._C import Tensor

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adagrad", "RMSprop"]


class _ParamGroup:
    """A view of one group: group['lr'] reads and writes the C++ options."""

    def __init__(self, optimizer: "_C._Optimizer", index: int) -> None:
        self._optimizer, self._index = optimizer, index

    def __getitem__(self, key: str) -> Any:
        if key == "params":
            return self._optimizer.group_params(self._index)
        options = self._optimizer.group_options(self._index)
        if key not in options:
            raise KeyError(key)
        return options[key]

    def __setitem__(self, key: str, value: float) -> None:
        self._optimizer.set_group_option(self._index, key, float(value))

    def keys(self) -> Iterator[str]:
        return iter(["params", *self._optimizer.group_options(self._index)])


class Optimizer:
    _kind = ""

    def __init__(self, params: Iterable[Tensor], **options: Any) -> None:
        params = list(params)
        if not params:
            raise ValueError(f"[{self._kind}] optimizer got an empty parameter list")
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"[{self._kind}] parameters must be Tensors, got {type(p).__name__}")
        betas = options.pop("betas", None)
        if betas is not None:
            options["beta1"], options["beta2"] = betas
        values = {}
        for name, value in options.items():
            if isinstance(value, bool):
                value = 1.0 if value else 0.0
            if not isinstance(value, (int, float)):
                raise TypeError(f"[{self._kind}] option '{name}' must be a number, got {type(value).__name__}")
            values[name] = float(value)
        self._optimizer = _C._make_optimizer(self._kind, params, values)

    @property
    def param_groups(self) -> list[_ParamGroup]:
        return [_ParamGroup(self._optimizer, i) for i in range(self._optimizer.num_groups())]

    def zero_grad(self, set_to_none: bool = True) -> None:
        self._optimizer.zero_grad(set_to_none)

    def step(self, closure: Optional[Any] = None) -> Optional[Tensor]:
        loss = None
        if closure is not None:
            from tensorgen.autograd import enable_grad
            with enable_grad():
                loss = closure()
        self._optimizer.step()
        return loss

    def save(self, path: str) -> None:
        self._optimizer.save(path)

    def load(self, path: str) -> None:
        self._optimizer.load(path)


class SGD(Optimizer):
    _kind = "SGD"


class Adam(Optimizer):
    _kind = "Adam"


class AdamW(Optimizer):
    _kind = "AdamW"


class Adagrad(Optimizer):
    _kind = "Adagrad"


class RMSprop(Optimizer):
    _kind = "RMSprop"

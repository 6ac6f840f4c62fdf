"""tg.nn's Module base class and the common layers, written as PyTorch's are: a module
registers the Parameters and Modules assigned to its attributes, in assignment order."""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any, Callable, Iterator, Optional, Sequence, Union

import tensorgen._C as _C
from tensorgen._C import Tensor
from tensorgen.autograd import no_grad
from tensorgen.nn import functional as F
from tensorgen.nn import init

__all__ = ["Parameter", "Module", "Sequential", "ModuleList", "Identity", "Linear", "ReLU", "GELU", "SiLU",
           "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Dropout", "Flatten", "Embedding", "LayerNorm", "Conv2d",
           "MaxPool2d", "AvgPool2d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "CrossEntropyLoss", "NLLLoss", "MSELoss", "BCEWithLogitsLoss"]


class Parameter(Tensor):
    """A leaf tensor that a Module registers as one of its parameters."""

    def __init__(self, data: Optional[Tensor] = None, requires_grad: bool = True) -> None:
        if data is None:
            data = _C.empty([0])
        if not isinstance(data, Tensor):
            raise TypeError(f"[Parameter] expected a Tensor, got {type(data).__name__}")
        super().__init__(data.detach())
        self.requires_grad_(requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)


class Module:
    """The base class of every layer and model. Subclasses assign Parameters and Modules to
    attributes in __init__ (after super().__init__()) and define forward()."""

    training: bool

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"[Module] cannot assign '{name}' before Module.__init__() is called")
        for table in (self._parameters, self._modules, self._buffers):
            table.pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        for table in ("_parameters", "_modules", "_buffers"):
            entries = self.__dict__.get(table)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for table in (self._parameters, self._modules, self._buffers):
            if name in table:
                del table[name]
                return
        object.__delattr__(self, name)

    def register_buffer(self, name: str, tensor: Optional[Tensor]) -> None:
        self._buffers[name] = tensor

    def register_parameter(self, name: str, param: Optional[Parameter]) -> None:
        self._parameters[name] = param

    def add_module(self, name: str, module: Optional["Module"]) -> None:
        self._modules[name] = module

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"[Module] {type(self).__name__} has no forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    # --- Queries ----------------------------------------------------------------------
    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, "Module"]]:
        yield prefix, self
        for name, child in self._modules.items():
            if child is not None:
                yield from child.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self) -> Iterator["Module"]:
        return (m for _, m in self.named_modules())

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        return ((n, m) for n, m in self._modules.items() if m is not None)

    def children(self) -> Iterator["Module"]:
        return (m for _, m in self.named_children())

    def named_parameters(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Parameter]]:
        seen: set[int] = set()
        modules = self.named_modules(prefix) if recurse else iter([(prefix, self)])
        for module_prefix, module in modules:
            for name, p in module._parameters.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{module_prefix}.{name}" if module_prefix else name), p

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        return (p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix: str = "") -> Iterator[tuple[str, Tensor]]:
        for module_prefix, module in self.named_modules(prefix):
            for name, b in module._buffers.items():
                if b is not None:
                    yield (f"{module_prefix}.{name}" if module_prefix else name), b

    def buffers(self) -> Iterator[Tensor]:
        return (b for _, b in self.named_buffers())

    # --- State ------------------------------------------------------------------------
    def train(self, mode: bool = True) -> "Module":
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.zero_()

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def to(self, *args: Any, **kwargs: Any) -> "Module":
        """Moves or casts every parameter and buffer. A parameter keeps its identity when only
        its device changes; a new dtype makes a new Parameter (tensorgen's set_data keeps a
        tensor's dtype, see docs/python.md), so build optimizers after casting, as PyTorch advises."""
        with no_grad():
            for m in self.modules():
                for name, p in m._parameters.items():
                    if p is None:
                        continue
                    moved = p.to(*args, **kwargs)
                    if moved.dtype == p.dtype:
                        p.set_data(moved)
                    else:
                        m._parameters[name] = Parameter(moved, p.requires_grad)
            for m in self.modules():
                for name, b in m._buffers.items():
                    if b is not None:
                        m._buffers[name] = b.to(*args, **kwargs)
        return self

    def state_dict(self) -> "OrderedDict[str, Tensor]":
        state: OrderedDict[str, Tensor] = OrderedDict()
        for name, p in self.named_parameters():
            state[name] = p.detach()
        for name, b in self.named_buffers():
            state[name] = b.detach()
        return state

    def load_state_dict(self, state_dict: dict, strict: bool = True) -> None:
        own = dict(self.named_parameters())
        own.update(self.named_buffers())
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise RuntimeError(f"[load_state_dict] missing keys: {missing}; unexpected keys: {unexpected}")
        with no_grad():
            for name, value in state_dict.items():
                if name not in own:
                    continue
                target = own[name]
                if tuple(target.shape) != tuple(value.shape):
                    raise RuntimeError(f"[load_state_dict] size mismatch for {name}: the checkpoint has "
                                       f"{tuple(value.shape)}, the module has {tuple(target.shape)}")
                target.copy_(value)

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = [f"({name}): " + repr(m).replace("\n", "\n  ") for name, m in self._modules.items()]
        head = f"{type(self).__name__}({self.extra_repr()}"
        if not lines:
            return head + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"


class Sequential(Module):
    def __init__(self, *modules: Module) -> None:
        super().__init__()
        for index, module in enumerate(modules):
            self.add_module(str(index), module)

    def forward(self, x: Any) -> Any:
        for module in self._modules.values():
            x = module(x)
        return x

    def __getitem__(self, index: int) -> Module:
        return list(self._modules.values())[index]

    def __len__(self) -> int:
        return len(self._modules)


class ModuleList(Module):
    def __init__(self, modules: Sequence[Module] = ()) -> None:
        super().__init__()
        for module in modules:
            self.append(module)

    def append(self, module: Module) -> "ModuleList":
        self.add_module(str(len(self._modules)), module)
        return self

    def __getitem__(self, index: int) -> Module:
        return list(self._modules.values())[index]

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __len__(self) -> int:
        return len(self._modules)


class Identity(Module):
    def forward(self, x: Tensor) -> Tensor:
        return x


class Linear(Module):
    def __init__(self, in_features: int, out_features: int, bias: bool = True) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(_C.empty([out_features, in_features]))
        self.bias = Parameter(_C.empty([out_features])) if bias else None
        # PyTorch's default: kaiming_uniform_(a=sqrt(5)) for the weight, U(-1/sqrt(fan_in), ...) for the bias.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(in_features) if in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, x: Tensor) -> Tensor:
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class _Activation(Module):
    _function: Callable[..., Tensor]

    def forward(self, x: Tensor) -> Tensor:
        return type(self)._function(x)


class ReLU(_Activation):
    _function = staticmethod(F.relu)


class GELU(_Activation):
    _function = staticmethod(F.gelu)


class SiLU(_Activation):
    _function = staticmethod(F.silu)


class Sigmoid(_Activation):
    _function = staticmethod(F.sigmoid)


class Tanh(_Activation):
    _function = staticmethod(F.tanh)


class Softmax(Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: Tensor) -> Tensor:
        return F.softmax(x, self.dim)


class LogSoftmax(Softmax):
    def forward(self, x: Tensor) -> Tensor:
        return F.log_softmax(x, self.dim)


class Dropout(Module):
    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"[Dropout] probability has to be between 0 and 1, but got {p}")
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout(x, self.p, self.training)


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x: Tensor) -> Tensor:
        return x.flatten(self.start_dim, self.end_dim)


class Embedding(Module):
    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: Optional[int] = None) -> None:
        super().__init__()
        self.padding_idx = padding_idx
        self.weight = Parameter(_C.randn([num_embeddings, embedding_dim]))

    def forward(self, x: Tensor) -> Tensor:
        return F.embedding(x, self.weight, self.padding_idx)


class LayerNorm(Module):
    def __init__(self, normalized_shape: Union[int, Sequence[int]], eps: float = 1e-5,
                 elementwise_affine: bool = True) -> None:
        super().__init__()
        shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        self.weight = Parameter(_C.ones(shape)) if elementwise_affine else None
        self.bias = Parameter(_C.zeros(shape)) if elementwise_affine else None

    def forward(self, x: Tensor) -> Tensor:
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


class Conv2d(Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: Union[int, Sequence[int]],
                 stride: Union[int, Sequence[int]] = 1, padding: Union[int, Sequence[int]] = 0,
                 dilation: Union[int, Sequence[int]] = 1, groups: int = 1, bias: bool = True) -> None:
        super().__init__()
        kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.weight = Parameter(_C.empty([out_channels, in_channels // groups, kh, kw]))
        self.bias = Parameter(_C.empty([out_channels])) if bias else None
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init.calculate_fan_in_and_fan_out(self.weight)
            init.uniform_(self.bias, -1 / math.sqrt(fan_in), 1 / math.sqrt(fan_in))

    def forward(self, x: Tensor) -> Tensor:
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class MaxPool2d(Module):
    def __init__(self, kernel_size: Union[int, Sequence[int]], stride: Optional[Union[int, Sequence[int]]] = None,
                 padding: Union[int, Sequence[int]] = 0) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def forward(self, x: Tensor) -> Tensor:
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding)


class AvgPool2d(MaxPool2d):
    def forward(self, x: Tensor) -> Tensor:
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding)


class MaxPool3d(MaxPool2d):
    def forward(self, x: Tensor) -> Tensor:
        return F.max_pool3d(x, self.kernel_size, self.stride, self.padding)


class AvgPool3d(MaxPool2d):
    def forward(self, x: Tensor) -> Tensor:
        return F.avg_pool3d(x, self.kernel_size, self.stride, self.padding)


class _AdaptivePool(Module):
    def __init__(self, output_size: Union[int, Sequence[int]]) -> None:
        super().__init__()
        self.output_size = output_size


class AdaptiveAvgPool1d(_AdaptivePool):
    def forward(self, x: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(x, self.output_size)


class AdaptiveAvgPool2d(_AdaptivePool):
    def forward(self, x: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(x, self.output_size)


class AdaptiveAvgPool3d(_AdaptivePool):
    def forward(self, x: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(x, self.output_size)


class _AdaptiveMaxPool(_AdaptivePool):
    def __init__(self, output_size: Union[int, Sequence[int]], return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    def forward(self, x: Tensor):
        return F.adaptive_max_pool1d(x, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    def forward(self, x: Tensor):
        return F.adaptive_max_pool2d(x, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    def forward(self, x: Tensor):
        return F.adaptive_max_pool3d(x, self.output_size, self.return_indices)


class _Loss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction


class CrossEntropyLoss(_Loss):
    def __init__(self, weight: Optional[Tensor] = None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__(reduction)
        self.weight, self.ignore_index, self.label_smoothing = weight, ignore_index, label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction, self.label_smoothing)


class NLLLoss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, self.reduction)


class BCEWithLogitsLoss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, reduction=self.reduction)

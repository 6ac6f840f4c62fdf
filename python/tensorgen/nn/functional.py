"""tg.nn.functional: PyTorch's functional names over the generated operators."""

from __future__ import annotations

from typing import Optional, Sequence, Union

import tensorgen._C as _C
from tensorgen._C import Tensor

__all__ = ["relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax", "linear", "dropout",
           "cross_entropy", "nll_loss", "mse_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
           "smooth_l1_loss", "conv2d", "max_pool2d", "avg_pool2d", "max_pool3d", "avg_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d", "layer_norm", "embedding", "one_hot",
           "scaled_dot_product_attention"]

# The schemas' `int reduction`, as PyTorch's Python API names it.
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(reduction: str) -> int:
    try:
        return _REDUCTIONS[reduction]
    except KeyError:
        raise ValueError(f"[loss] reduction must be 'none', 'mean' or 'sum', got {reduction!r}") from None


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return _C.relu_(input) if inplace else _C.relu(input)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    return _C.gelu(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _C.silu_(input) if inplace else _C.silu(input)


def sigmoid(input: Tensor) -> Tensor:
    return _C.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return _C.tanh(input)


def softmax(input: Tensor, dim: int, dtype: Optional[_C.dtype] = None) -> Tensor:
    return _C.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int, dtype: Optional[_C.dtype] = None) -> Tensor:
    return _C.log_softmax(input, dim, dtype)


def linear(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    return _C.linear(input, weight, bias)


def dropout(input: Tensor, p: float = 0.5, training: bool = True) -> Tensor:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"[dropout] probability has to be between 0 and 1, but got {p}")
    return _C.dropout(input, p, training)


def cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, ignore_index: int = -100,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    return _C.cross_entropy_loss(input, target, weight, _reduction(reduction), ignore_index, label_smoothing)


def nll_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, ignore_index: int = -100,
             reduction: str = "mean") -> Tensor:
    return _C.nll_loss(input, target, weight, _reduction(reduction), ignore_index)


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    return _C.mse_loss(input, target, _reduction(reduction))


def smooth_l1_loss(input: Tensor, target: Tensor, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    return _C.smooth_l1_loss(input, target, _reduction(reduction), beta)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                         reduction: str = "mean") -> Tensor:
    return _C.binary_cross_entropy(input, target, weight, _reduction(reduction))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                                     reduction: str = "mean", pos_weight: Optional[Tensor] = None) -> Tensor:
    return _C.binary_cross_entropy_with_logits(input, target, weight, pos_weight, _reduction(reduction))


IntOrPair = Union[int, Sequence[int]]


def conv2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrPair = 1,
           padding: IntOrPair = 0, dilation: IntOrPair = 1, groups: int = 1) -> Tensor:
    return _C.conv2d(input, weight, bias, stride, padding, dilation, groups)


def max_pool2d(input: Tensor, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None, padding: IntOrPair = 0,
               dilation: IntOrPair = 1, ceil_mode: bool = False) -> Tensor:
    return _C.max_pool2d(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)


def avg_pool2d(input: Tensor, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None, padding: IntOrPair = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    return _C.avg_pool2d(input, kernel_size, [] if stride is None else stride, padding, ceil_mode, count_include_pad)


def max_pool3d(input: Tensor, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None, padding: IntOrPair = 0,
               dilation: IntOrPair = 1, ceil_mode: bool = False) -> Tensor:
    return _C.max_pool3d(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)


def avg_pool3d(input: Tensor, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None, padding: IntOrPair = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Optional[int] = None) -> Tensor:
    return _C.avg_pool3d(input, kernel_size, [] if stride is None else stride, padding, ceil_mode, count_include_pad,
                         divisor_override)


# The adaptive pools: PyTorch's names; the max pools return (values, indices) only when asked.
def adaptive_avg_pool1d(input: Tensor, output_size: IntOrPair) -> Tensor:
    return _C.adaptive_avg_pool1d(input, output_size)


def adaptive_avg_pool2d(input: Tensor, output_size: IntOrPair) -> Tensor:
    return _C.adaptive_avg_pool2d(input, output_size)


def adaptive_avg_pool3d(input: Tensor, output_size: IntOrPair) -> Tensor:
    return _C.adaptive_avg_pool3d(input, output_size)


def _values_or_pair(result, return_indices: bool):
    return result if return_indices else result[0]


def adaptive_max_pool1d(input: Tensor, output_size: IntOrPair, return_indices: bool = False):
    return _values_or_pair(_C.adaptive_max_pool1d(input, output_size), return_indices)


def adaptive_max_pool2d(input: Tensor, output_size: IntOrPair, return_indices: bool = False):
    return _values_or_pair(_C.adaptive_max_pool2d(input, output_size), return_indices)


def adaptive_max_pool3d(input: Tensor, output_size: IntOrPair, return_indices: bool = False):
    return _values_or_pair(_C.adaptive_max_pool3d(input, output_size), return_indices)


def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    return _C.layer_norm(input, list(normalized_shape), weight, bias, eps)


def embedding(input: Tensor, weight: Tensor, padding_idx: Optional[int] = None) -> Tensor:
    return _C.embedding(weight, input, -1 if padding_idx is None else padding_idx)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    return _C.one_hot(tensor, num_classes)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Optional[Tensor] = None,
                                 dropout_p: float = 0.0, is_causal: bool = False) -> Tensor:
    return _C.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal)

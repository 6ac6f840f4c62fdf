"""Bad arguments: a TypeError that lists the signatures, or the core's own error, and never a
crash. A hypothesis test throws random argument lists at 20 operators."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tensorgen as tg

# What a bad call may raise: Python's argument errors, and the core's (tensorgen.Error is a
# RuntimeError; OutOfMemoryError derives from it).
ALLOWED = (TypeError, ValueError, IndexError, NotImplementedError, RuntimeError)

OPERATORS = ["add", "sub", "mul", "div", "matmul", "sum", "mean", "cat", "stack", "reshape", "transpose",
             "softmax", "clamp", "where", "index_select", "gather", "masked_fill", "linear", "cumsum", "topk",
             "max_pool2d", "conv2d", "layer_norm", "embedding", "amax"]


def test_no_match_lists_every_signature_and_why():
    with pytest.raises(TypeError) as error:
        tg.add(tg.ones(2), "three")
    message = str(error.value)
    assert message.startswith("[add] add() received an invalid combination of arguments - got (Tensor, str)")
    assert "* (Tensor self, Tensor other, *, Number alpha=1)" in message
    assert "* (Tensor self, Number other, Number alpha=1)" in message
    assert "argument 'other' must be Number, not str" in message


def test_unknown_keyword_missing_argument_and_too_many():
    with pytest.raises(TypeError, match="unexpected keyword argument 'alpah'"):
        tg.add(tg.ones(1), tg.ones(1), alpah=2)
    with pytest.raises(TypeError, match="missing required argument 'other'"):
        tg.add(tg.ones(1))
    with pytest.raises(TypeError, match="takes 2 positional arguments but 3 were given"):
        tg.ones(1).sum(0, True, 5)
    with pytest.raises(TypeError, match="multiple values for argument 'other'"):
        tg.add(tg.ones(1), tg.ones(1), other=tg.ones(1))


def test_strict_kinds_as_pytorch():
    t = tg.ones(2, 2)
    with pytest.raises(TypeError, match="must be int, not bool"):
        t.transpose(True, 0)
    with pytest.raises(TypeError, match="must be int, not float"):
        t.transpose(0.5, 1)
    assert t.sum(np.int64(0)).shape == (2,)  # anything with __index__ is an int


def test_factory_requires_grad_must_be_bool():
    with pytest.raises(TypeError, match="requires_grad"):
        tg.zeros(2, requires_grad="yes")


def test_method_on_a_non_tensor_self():
    with pytest.raises(TypeError, match="argument 'self' must be Tensor"):
        tg.Tensor.add(3, 4)


def _tensor(draw):
    shape = draw(st.lists(st.integers(0, 3), min_size=0, max_size=4))
    dtype = draw(st.sampled_from(["float32", "float64", "int64", "int32", "bool", "uint8"]))
    return tg.tensor(np.ones(shape, dtype=dtype) if dtype == "bool" else np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape))


@st.composite
def values(draw):
    kind = draw(st.sampled_from(["tensor", "int", "big", "float", "bool", "str", "none", "ints", "tensors", "dtype",
                                 "device", "nested", "object"]))
    if kind == "tensor":
        return _tensor(draw)
    if kind == "int":
        return draw(st.integers(-5, 5))
    if kind == "big":
        return draw(st.sampled_from([2**62, -2**62, 2**70, -1]))
    if kind == "float":
        return draw(st.floats(allow_nan=True, allow_infinity=True))
    if kind == "bool":
        return draw(st.booleans())
    if kind == "str":
        return draw(st.sampled_from(["", "mean", "tanh", "cuda:0", "cpu", "x" * 3]))
    if kind == "none":
        return None
    if kind == "ints":
        return draw(st.lists(st.integers(-4, 4), max_size=4))
    if kind == "tensors":
        return [_tensor(draw) for _ in range(draw(st.integers(0, 3)))]
    if kind == "dtype":
        return draw(st.sampled_from([tg.float32, tg.int64, tg.bool, tg.float16]))
    if kind == "device":
        return tg.device("cpu")
    if kind == "nested":
        return [[1, 2], (3, None)]
    return object()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(OPERATORS), args=st.lists(values(), max_size=5),
       kwargs=st.dictionaries(st.sampled_from(["dim", "alpha", "out", "keepdim", "dtype", "bias", "other", "zzz"]),
                              values(), max_size=2))
def test_random_arguments_raise_only_python_exceptions(name, args, kwargs):
    try:
        getattr(tg, name)(*args, **kwargs)
    except ALLOWED as error:
        assert str(error), "an error must say what went wrong"

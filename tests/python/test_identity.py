"""One Python object per live tensor, as PyTorch keeps (Note [One Python object per tensor] in
python/src/tensor_object.cpp): what C++ hands back for a TensorImpl that already has a live
Python object is that object; a new TensorImpl is a new object; dead objects leave nothing."""

import gc
import weakref

import pytest

import tensorgen as tg
from tensorgen import nn


def live() -> int:
    gc.collect()
    return tg._C._num_live_tensor_objects()


def test_grad_is_the_same_object_each_time():
    x = tg.ones(3, requires_grad=True)
    (x * x).sum().backward()
    assert x.grad is x.grad
    g = x.grad
    (x * 2).sum().backward()  # accumulates into the same tensor
    assert x.grad is g and x.grad.tolist() == [4.0, 4.0, 4.0]


def test_new_tensors_are_new_objects():
    t = tg.ones(2, requires_grad=True)
    assert t is not t.detach()
    assert t.detach() is not t.detach()
    assert t.view(2) is not t  # a view is a TensorImpl of its own, as in PyTorch
    assert t.requires_grad_() is t and t.detach_() is t


def test_tensors_passed_through_cpp_come_back_as_the_same_objects():
    x, w = tg.ones(2, 3), tg.ones(3)
    seen = []

    def fn(a, b):
        seen.extend([a, b])
        return a * b

    tg.jit.trace(fn, (x, w))
    assert seen[0] is x and seen[1] is w


def test_a_parameter_is_the_object_cpp_hands_back():
    p = nn.Parameter(tg.ones(2))
    seen = []
    tg.jit.trace(lambda t: seen.append(t) or t * 2, [p])
    assert seen[0] is p and type(seen[0]) is nn.Parameter


def test_a_dead_object_leaves_no_entry_and_the_tensor_gets_a_new_object():
    x = tg.ones(4, requires_grad=True)
    x.sum().backward()
    ref = weakref.ref(x.grad)  # the only reference was the temporary: the object is gone
    assert ref() is None
    g = x.grad  # C++ still holds the gradient: a fresh object over the same memory
    assert g.tolist() == [1.0] * 4 and x.grad is g


def test_objects_and_entries_do_not_leak():
    before = live()
    tensors = [tg.ones(2) + i for i in range(1000)]
    assert live() == before + 1000
    del tensors
    assert live() == before
    x = tg.ones(2, requires_grad=True)
    for _ in range(100):
        (x * 2).sum().backward()
        _ = x.grad, x.grad.detach()
    del x, _
    assert live() == before


def test_a_subclass_object_in_a_reference_cycle_is_collected():
    before = live()
    p = nn.Parameter(tg.ones(2))
    p.me = p  # a cycle through the instance dict: only the cycle collector frees it
    ref = weakref.ref(p)
    del p
    gc.collect()
    assert ref() is None and live() == before


@pytest.mark.parametrize("make", [lambda: tg.ones(2), lambda: nn.Parameter(tg.ones(2))])
def test_weak_references(make):
    t = make()
    ref = weakref.ref(t)
    assert ref() is t
    del t
    assert ref() is None

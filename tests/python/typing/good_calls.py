"""Calls mypy must accept against the generated stubs (tests/python/test_stubs.py)."""
import tensorgen as tg

a = tg.ones([2, 3], dtype=tg.float32, requires_grad=True)
b: tg.Tensor = tg.add(a, a, alpha=2)
c = a.sum(1, keepdim=True) + b.mean()
d = tg.matmul(a, a.t())
e = tg.cat([a, b], dim=0).view(-1)
values, indices = a.max(1)
f = a.clamp(min=0.0).relu_()
g = tg.zeros(2, 3)
shape: tuple[int, ...] = a.shape
is_leaf: bool = a.is_leaf

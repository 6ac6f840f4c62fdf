"""Calls mypy must reject against the generated stubs, one per line marked `# error`."""
import tensorgen as tg

a = tg.ones([2, 3])
tg.add(a, "x")  # error
a.sum(keepdim="yes")  # error
tg.matmul(a)  # error
x: str = a.t()  # error

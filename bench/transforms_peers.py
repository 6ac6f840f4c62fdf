"""The cases of bench_transforms in torch.func and JAX (CPU), for the figures beside ours.
Prints `name value unit` lines; exits 1 when no peer asked for (arguments: torch.func, jax;
none: both) imports. Run by bench_transforms.
As bench_transforms (Note [Timing transforms on a shared VM]), the peers run on one thread and
each case is timed in wall clock and in CPU time (the process's, as JAX computes on threads of
its own); `_cpu` names the CPU-time figures."""

import os
import sys
import time

# One thread, set before the peers are imported.
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
os.environ.setdefault("OMP_NUM_THREADS", "1")


def best_ms(fn, repeats=7, clock=time.perf_counter):
    best = float("inf")
    for _ in range(repeats):
        start = clock()
        fn()
        best = min(best, (clock() - start) * 1e3)
    return best


def report(name, fn):
    print(f"{name} {best_ms(fn):.2f} ms")
    print(f"{name}_cpu {best_ms(fn, clock=time.process_time):.2f} ms")


def torch_cases():
    import torch
    from torch.func import grad, hessian, jacfwd, jacrev, vmap
    torch.manual_seed(0)
    xs, w1, b1, w2 = torch.randn(64, 128), torch.randn(128, 256) * 0.05, torch.randn(256), torch.randn(256, 10) * 0.05

    def loss(x, w):
        y = torch.tanh(x.unsqueeze(0) @ w + b1) @ w2
        return (y * y).sum() / 2

    per_sample = vmap(grad(loss, argnums=1), in_dims=(0, None))
    torch.set_num_threads(1)
    report("torch_per_sample_grad_vmap_b64", lambda: per_sample(xs, w1))
    report("torch_per_sample_grad_loop_b64", lambda: [grad(loss, argnums=1)(x, w1) for x in xs])
    w, v, x = torch.randn(256, 256) * 0.05, torch.randn(256, 256) * 0.05, torch.randn(256)

    def mlp(t):
        return torch.tanh(v @ torch.tanh(w @ t))

    report("torch_jacrev_mlp_256", lambda: jacrev(mlp)(x))
    report("torch_jacfwd_mlp_256", lambda: jacfwd(mlp)(x))

    def hand(t):
        h = torch.tanh(w @ t)
        y = torch.tanh(v @ h)
        return (1 - y * y)[:, None] * (v @ ((1 - h * h)[:, None] * w))

    report("torch_jacobian_by_hand_256", lambda: hand(x))
    a, x16 = torch.randn(16, 16), torch.randn(16)
    report("torch_hessian_16", lambda: hessian(lambda t: torch.tanh(a @ t).sum())(x16))


def jax_cases():
    import jax
    import jax.numpy as jnp
    key = jax.random.PRNGKey(0)
    k = jax.random.split(key, 8)
    xs, w1 = jax.random.normal(k[0], (64, 128)), jax.random.normal(k[1], (128, 256)) * 0.05
    b1, w2 = jax.random.normal(k[2], (256,)), jax.random.normal(k[3], (256, 10)) * 0.05

    def loss(x, w):
        y = jnp.tanh(x[None] @ w + b1) @ w2
        return (y * y).sum() / 2

    per_sample = jax.jit(jax.vmap(jax.grad(loss, argnums=1), in_axes=(0, None)))
    per_sample(xs, w1).block_until_ready()
    report("jax_per_sample_grad_vmap_b64", lambda: per_sample(xs, w1).block_until_ready())
    one = jax.jit(jax.grad(loss, argnums=1))
    one(xs[0], w1).block_until_ready()
    report("jax_per_sample_grad_loop_b64", lambda: [one(xs[i], w1).block_until_ready() for i in range(64)])
    w, v, x = jax.random.normal(k[4], (256, 256)) * 0.05, jax.random.normal(k[5], (256, 256)) * 0.05, jax.random.normal(k[6], (256,))

    def mlp(t):
        return jnp.tanh(v @ jnp.tanh(w @ t))

    jr, jf = jax.jit(jax.jacrev(mlp)), jax.jit(jax.jacfwd(mlp))
    jr(x).block_until_ready()
    jf(x).block_until_ready()
    report("jax_jacrev_mlp_256", lambda: jr(x).block_until_ready())
    report("jax_jacfwd_mlp_256", lambda: jf(x).block_until_ready())
    hand = jax.jit(lambda t: (1 - jnp.tanh(v @ jnp.tanh(w @ t)) ** 2)[:, None] * (v @ ((1 - jnp.tanh(w @ t) ** 2)[:, None] * w)))
    hand(x).block_until_ready()
    report("jax_jacobian_by_hand_256", lambda: hand(x).block_until_ready())
    a, x16 = jax.random.normal(k[7], (16, 16)), jax.random.normal(k[6], (16,))
    hess = jax.jit(jax.hessian(lambda t: jnp.tanh(a @ t).sum()))
    hess(x16).block_until_ready()
    report("jax_hessian_16", lambda: hess(x16).block_until_ready())


def main() -> int:
    ran = False
    wanted = sys.argv[1:] or ["torch.func", "jax"]  # bench_transforms names the peers still to run
    for name, cases in (("torch.func", torch_cases), ("jax", jax_cases)):
        if name not in wanted:
            continue
        try:
            cases()
            ran = True
        except ImportError:
            print(f"peers: {name} not installed")
    return 0 if ran else 1


if __name__ == "__main__":
    sys.exit(main())

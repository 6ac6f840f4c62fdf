"""The cases of bench_transforms in torch.func and JAX (CPU), for the figures beside ours.
Prints `name value unit` lines; exits 1 when neither peer imports. Run by bench_transforms."""

import sys
import time


def best_ms(fn, repeats=5):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, (time.perf_counter() - start) * 1e3)
    return best


def torch_cases():
    import torch
    from torch.func import grad, hessian, jacfwd, jacrev, vmap
    torch.manual_seed(0)
    xs, w1, b1, w2 = torch.randn(64, 128), torch.randn(128, 256) * 0.05, torch.randn(256), torch.randn(256, 10) * 0.05

    def loss(x, w):
        y = torch.tanh(x.unsqueeze(0) @ w + b1) @ w2
        return (y * y).sum() / 2

    per_sample = vmap(grad(loss, argnums=1), in_dims=(0, None))
    print(f"torch_per_sample_grad_vmap_b64 {best_ms(lambda: per_sample(xs, w1)):.2f} ms")
    print(f"torch_per_sample_grad_loop_b64 {best_ms(lambda: [grad(loss, argnums=1)(x, w1) for x in xs]):.2f} ms")
    w, v, x = torch.randn(256, 256) * 0.05, torch.randn(256, 256) * 0.05, torch.randn(256)

    def mlp(t):
        return torch.tanh(v @ torch.tanh(w @ t))

    print(f"torch_jacrev_mlp_256 {best_ms(lambda: jacrev(mlp)(x)):.2f} ms")
    print(f"torch_jacfwd_mlp_256 {best_ms(lambda: jacfwd(mlp)(x)):.2f} ms")
    a, x16 = torch.randn(16, 16), torch.randn(16)
    print(f"torch_hessian_16 {best_ms(lambda: hessian(lambda t: torch.tanh(a @ t).sum())(x16)):.2f} ms")


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
    print(f"jax_per_sample_grad_vmap_b64 {best_ms(lambda: per_sample(xs, w1).block_until_ready()):.2f} ms")
    w, v, x = jax.random.normal(k[4], (256, 256)) * 0.05, jax.random.normal(k[5], (256, 256)) * 0.05, jax.random.normal(k[6], (256,))

    def mlp(t):
        return jnp.tanh(v @ jnp.tanh(w @ t))

    jr, jf = jax.jit(jax.jacrev(mlp)), jax.jit(jax.jacfwd(mlp))
    jr(x).block_until_ready()
    jf(x).block_until_ready()
    print(f"jax_jacrev_mlp_256 {best_ms(lambda: jr(x).block_until_ready()):.2f} ms")
    print(f"jax_jacfwd_mlp_256 {best_ms(lambda: jf(x).block_until_ready()):.2f} ms")


def main() -> int:
    ran = False
    for name, cases in (("torch.func", torch_cases), ("jax", jax_cases)):
        try:
            cases()
            ran = True
        except ImportError:
            print(f"peers: {name} not installed")
    return 0 if ran else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The MLP regression of mlp_regression.cpp in numpy (float64, backpropagation by hand): the
same data, the same deterministic initial parameters, the same gradient descent. Prints the
same `name value` lines, so that the port test can compare tensorgen with it where LibTorch
is not installed."""
import math

import numpy as np


def deterministic(shape, k):
    scale = 1.0 / math.sqrt(shape[1]) if len(shape) >= 2 else 0.5
    n = int(np.prod(shape))
    values = np.array([scale * math.sin(0.7 * i + 1.3 * k) for i in range(n)], dtype=np.float32)
    return values.astype(np.float64).reshape(shape)


shapes = [("fc1.weight", (16, 1)), ("fc1.bias", (16,)), ("fc2.weight", (16, 16)), ("fc2.bias", (16,)),
          ("fc3.weight", (1, 16)), ("fc3.bias", (1,))]
params = {name: deterministic(shape, k) for k, (name, shape) in enumerate(shapes)}
for name, shape in shapes:
    print(f"parameter.{name}.numel {int(np.prod(shape))}")

x = (np.arange(64, dtype=np.float32) / 32.0 - 1.0).astype(np.float64).reshape(64, 1)
y = np.tanh(x * 3.0) * 0.8 - x * x * 0.5


def forward(p, inputs):
    h1 = np.tanh(inputs @ p["fc1.weight"].T + p["fc1.bias"])
    h2 = np.tanh(h1 @ p["fc2.weight"].T + p["fc2.bias"])
    return h1, h2, h2 @ p["fc3.weight"].T + p["fc3.bias"]


for step in range(401):
    h1, h2, out = forward(params, x)
    loss = np.mean((out - y) ** 2)
    if step % 100 == 0:
        print(f"loss.step{step} {loss:.9g}")
    if step == 400:
        break
    d_out = 2.0 * (out - y) / out.size
    grads = {"fc3.weight": d_out.T @ h2, "fc3.bias": d_out.sum(0)}
    d_h2 = (d_out @ params["fc3.weight"]) * (1 - h2 ** 2)
    grads["fc2.weight"], grads["fc2.bias"] = d_h2.T @ h1, d_h2.sum(0)
    d_h1 = (d_h2 @ params["fc2.weight"]) * (1 - h1 ** 2)
    grads["fc1.weight"], grads["fc1.bias"] = d_h1.T @ x, d_h1.sum(0)
    for name in params:
        params[name] = params[name] - 0.2 * grads[name]

probe = np.array([-0.75, 0.0, 0.5]).reshape(3, 1)
for i, value in enumerate(forward(params, probe)[2][:, 0]):
    print(f"prediction.{i} {value:.9g}")

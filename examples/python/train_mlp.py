#!/usr/bin/env python3
"""train_mlp.py: the Python twin of examples/train_mlp.cpp. Trains a multilayer perceptron
to tell apart the arms of a noisy spiral (drawn here, no download), and reports loss,
accuracy on the training and held-out points, and samples per second, with a progress bar.

    python examples/python/train_mlp.py [--device cpu|cuda] [--epochs N] [--batch-size N] [--seed N]

The model is 2 -> 128 -> 128 -> 3 with ReLU (three nn.Linear layers, He initialisation,
zero biases), trained with cross-entropy and SGD(lr=0.05, momentum=0.9) on shuffled batches,
as the C++ example is. The same data drawn with NumPy rather than std::mt19937_64, so the
numbers differ in their digits, not in what they reach (docs/python.md).
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

import tensorgen as tg
from tensorgen import nn
from tensorgen.nn import functional as F
from tensorgen.utils.data import DataLoader, TensorDataset


def spirals(per_class: int, classes: int, seed: int) -> tuple[tg.Tensor, tg.Tensor]:
    rng = np.random.default_rng(seed)
    r = np.tile(np.arange(per_class, dtype=np.float32) / per_class, classes)
    c = np.repeat(np.arange(classes), per_class)
    angle = 4.0 * r + 2.0 * math.pi * c / classes
    noise = rng.normal(0.0, 0.2, size=(2, r.size)).astype(np.float32)
    xy = np.stack([r * np.sin(angle) * 2 + noise[0] * r, r * np.cos(angle) * 2 + noise[1] * r], axis=1)
    return tg.tensor(xy.astype(np.float32)), tg.tensor(c.astype(np.int64))


class Mlp(nn.Module):
    def __init__(self, inputs: int, hidden: int, classes: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(inputs, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, classes)
        for layer in (self.fc1, self.fc2, self.fc3):
            nn.init.kaiming_normal_(layer.weight, 0, "fan_in", "relu")
            nn.init.zeros_(layer.bias)

    def forward(self, x: tg.Tensor) -> tg.Tensor:
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


@tg.no_grad()
def accuracy(model: Mlp, points: tg.Tensor, labels: tg.Tensor) -> float:
    model.eval()
    predicted = model(points).argmax(1)
    model.train()
    return predicted.eq(labels).sum().item() * 100.0 / labels.shape[0]


def progress(done: int, total: int, text: str) -> None:
    """A plain progress bar on one terminal line (no tqdm needed)."""
    width = 30
    filled = width * done // total
    sys.stdout.write(f"\r  [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {text}")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.batch_size < 1:
        parser.error("--epochs and --batch-size must be positive")

    tg.manual_seed(args.seed)
    points, labels = spirals(2000, 3, args.seed)
    order = np.random.default_rng(args.seed + 1).permutation(labels.shape[0])
    n_test = int(0.2 * order.size)
    test_index, train_index = tg.tensor(order[:n_test]), tg.tensor(order[n_test:])
    train_x, train_y = points.index_select(0, train_index).to(args.device), labels.index_select(0, train_index).to(args.device)
    test_x, test_y = points.index_select(0, test_index).to(args.device), labels.index_select(0, test_index).to(args.device)
    n = train_y.shape[0]
    print(f"train_mlp.py: {n} training and {n_test} held-out points, 3 classes, on {args.device}")

    model = Mlp(2, 128, 3).to(args.device)
    optimizer = tg.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loader = DataLoader(TensorDataset(train_x, train_y), batch_size=args.batch_size, shuffle=True, seed=args.seed)
    interactive = sys.stdout.isatty()
    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        loss_sum, batches = 0.0, 0
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            loss_sum += loss.item()
            batches += 1
            if interactive:
                progress(batches, len(loader), f"loss {loss_sum / batches:.4f}")
        seconds = time.perf_counter() - start
        if interactive:
            sys.stdout.write("\r" + " " * 72 + "\r")
        print(f"epoch {epoch:3d}/{args.epochs}  loss {loss_sum / batches:.4f}  train acc "
              f"{accuracy(model, train_x, train_y):5.1f}%  test acc {accuracy(model, test_x, test_y):5.1f}%  "
              f"{n / seconds:9.0f} samples/s", flush=True)
    print(f"final test accuracy: {accuracy(model, test_x, test_y):.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

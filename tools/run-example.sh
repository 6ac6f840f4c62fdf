#!/usr/bin/env bash
# Builds tensorgen and runs the main example, examples/train_mlp (an MLP classifier trained
# on data it generates). Arguments are passed to it: --device cpu|cuda, --epochs N,
# --batch-size N, --seed N.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/configure.sh
ninja -C build examples/train_mlp
exec build/examples/train_mlp "$@"

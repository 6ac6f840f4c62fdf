#!/usr/bin/env bash
# Installs LibTorch 2.x for the LibTorch peers (bench_compare, bench_graph's LibTorch column,
# the port test's _vs_libtorch variants) from the PyPI `torch` wheel, which ships LibTorch's
# headers (torch/include) and libraries (torch/lib) beside its Python code. The wheel goes into
# its own venv, .venv-torch/ (ignored by git; about 1-4 GB, so it is not part of CI).
# Tries PyTorch's CPU-only index first (small wheel), then PyPI's default wheel with --no-deps
# (its CUDA libraries are not needed: only libtorch_cpu.so and libc10.so are linked).
# Prints, on the last line, the directory to pass to meson:
#   meson configure build -Dlibtorch_dir=$(tools/setup-libtorch.sh | tail -1)
# Idempotent: does nothing when the wheel is already installed.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${TG_LIBTORCH_VENV:-$PWD/.venv-torch}
py=$venv/bin/python
find_torch_dir() {
  "$py" - <<'PY'
import importlib.util, os, sys
spec = importlib.util.find_spec("torch")
if spec is None or spec.origin is None:
    sys.exit(1)
d = os.path.dirname(spec.origin)
ok = os.path.isdir(os.path.join(d, "include", "torch")) and os.path.isfile(os.path.join(d, "lib", "libtorch_cpu.so"))
print(d) if ok else sys.exit(1)
PY
}
if [ ! -x "$py" ]; then
  python3 -m venv "$venv" >&2
fi
if ! find_torch_dir >/dev/null 2>&1; then
  pip=("$py" -m pip install -q --disable-pip-version-check --no-deps)
  echo "setup-libtorch: installing the CPU torch wheel into $venv (index: download.pytorch.org)" >&2
  if ! timeout 900 "${pip[@]}" torch --index-url https://download.pytorch.org/whl/cpu >&2; then
    echo "setup-libtorch: download.pytorch.org unreachable or failed; falling back to PyPI torch --no-deps" >&2
    "${pip[@]}" torch >&2
  fi
fi
dir=$(find_torch_dir) || { echo "setup-libtorch: torch installed but $venv has no torch/include or torch/lib/libtorch_cpu.so" >&2; exit 1; }
echo "$dir"

#!/usr/bin/env python3
"""tensorgen's safetensors files read by the `safetensors` package (numpy, and torch where
installed), and files the package writes read by tensorgen. Exit 77 (skip) when the package
or numpy is missing. Usage: safetensors_interop.py VENV_PYTHON TOOL"""
import os
import sys
import tempfile

venv_python, tool = sys.argv[1], sys.argv[2]
# Run under the project's virtual environment (tools/setup-venv.sh) when it exists (its python
# is often a symlink to the system's, so compare environments, not executables).
if os.path.exists(venv_python) and not os.environ.get("TG_INTEROP_REEXEC"):
    os.environ["TG_INTEROP_REEXEC"] = "1"
    os.execv(venv_python, [venv_python] + sys.argv)

try:
    import numpy as np
    from safetensors.numpy import load_file, save_file
except ImportError as e:
    print(f"SKIP: the safetensors package with numpy is not installed ({e}); run tools/setup-venv.sh")
    sys.exit(77)
import subprocess

# Mirrors kSpecs in safetensors_interop_tool.cpp.
SPECS = [("f32", np.float32, (2, 3)), ("f64", np.float64, (4,)), ("f16", np.float16, (3,)),
         ("i64", np.int64, (5,)), ("i32", np.int32, (2, 2)), ("i16", np.int16, (3,)),
         ("i8", np.int8, (3,)), ("u8", np.uint8, (3,)), ("b", np.bool_, (4,)),
         ("scalar", np.float32, ()), ("empty", np.float32, (0, 2))]


def reference(dtype, shape):
    i = np.arange(int(np.prod(shape)), dtype=np.float64)
    if dtype == np.bool_:
        v = i % 2
    elif dtype == np.uint8:
        v = i
    elif np.issubdtype(dtype, np.floating):
        v = i * 0.5 - 3
    else:
        v = i - 3
    return v.astype(dtype).reshape(shape)


failures = []
with tempfile.TemporaryDirectory() as tmp:
    ours = os.path.join(tmp, "from_tensorgen.safetensors")
    subprocess.run([tool, "write", ours], check=True)
    loaded = load_file(ours)
    for name, dtype, shape in SPECS:
        got = loaded.get(name)
        want = reference(dtype, shape)
        if got is None or got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
            failures.append(f"python read {name}: expected {want!r}, got {got!r}")
    if set(loaded) != {s[0] for s in SPECS}:
        failures.append(f"python read names {sorted(loaded)}")
    from safetensors import safe_open
    with safe_open(ours, framework="np") as f:
        if f.metadata() != {"written_by": "tensorgen"}:
            failures.append(f"python read metadata {f.metadata()}")

    theirs = os.path.join(tmp, "from_python.safetensors")
    save_file({name: reference(dtype, shape) for name, dtype, shape in SPECS}, theirs,
              metadata={"written_by": "python"})
    result = subprocess.run([tool, "check", theirs], capture_output=True, text=True)
    if result.returncode != 0:
        failures.append("tensorgen read python's file: " + result.stderr)

    try:
        import torch
        from safetensors.torch import load_file as torch_load
        t = torch_load(ours)
        if not torch.equal(t["f32"], torch.arange(6, dtype=torch.float64).mul(0.5).sub(3).float().reshape(2, 3)):
            failures.append(f"torch read f32: {t['f32']}")
        print("torch: checked")
    except ImportError:
        print("torch: not installed, its check skipped")

for f in failures:
    print("FAIL:", f)
print("safetensors interop:", "ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)

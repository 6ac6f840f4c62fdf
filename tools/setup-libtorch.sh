#!/usr/bin/env bash
# Installs LibTorch 2.x for the LibTorch peers (bench_compare, bench_graph's LibTorch column,
# the port test's _vs_libtorch variants) from the PyPI `torch` wheel, which ships LibTorch's
# headers (torch/include) and libraries (torch/lib) beside its Python code. The wheel goes into
# its own venv, .venv-torch/ (ignored by git; about 1-4 GB, so it is not part of CI).
# Tries PyTorch's CPU-only index first (small wheel), then PyPI's default wheel with --no-deps
# (its CUDA libraries are not needed: only libtorch_cpu.so and libc10.so are linked).
# Prints, on the last line, the directory to pass to meson:
#   meson configure build -Dlibtorch_dir=$(tools/setup-libtorch.sh | tail -1)
# Then, so that `import torch` works (the Python peer of bench/python and tests/python), the small
# pure-Python packages torch imports, which --no-deps left out (never the nvidia-*/CUDA wheels).
# Idempotent: does nothing when the wheel is already installed and torch imports.
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
# torch's Requires-Dist without the CUDA wheels and setuptools (only torch.utils.cpp_extension
# imports it); their own deps (mpmath, MarkupSafe) are pure Python too, so these install with deps.
import_deps=(filelock 'typing-extensions>=4.13.0' 'sympy>=1.13.3' 'networkx>=2.5.1' jinja2 'fsspec>=0.8.5')
if find_torch_dir >/dev/null 2>&1 && ! "$py" -c 'import torch' >/dev/null 2>&1; then
  if ! "$py" -c 'import typing_extensions, sympy, networkx, jinja2, fsspec, filelock' >/dev/null 2>&1; then
    echo "setup-libtorch: installing torch's pure-Python dependencies into $venv: ${import_deps[*]}" >&2
    "$py" -m pip install -q --disable-pip-version-check "${import_deps[@]}" >&2
  fi
  # Note [Load-only stand-ins]: the PyPI wheel is CUDA-built; its libtorch_cuda.so is loaded by
  # `import torch` even on a CPU, so every shared library it needs must be found. The machine's
  # CUDA toolkit provides most; the few it lacks (cuFile, cuSPARSELt, NVSHMEM here) come from
  # nvidia-* wheels that we do not install. Instead we compile a stand-in per missing library:
  # its soname, and every symbol torch's libraries need from it (read from their dynamic symbol
  # tables, with symbol versions), each aborting with a message if ever called. CPU code never
  # calls them (GPUDirect storage, 2:4 sparse matmul, NVSHMEM symmetric memory). They go into
  # torch/lib, which is on every torch library's RPATH as $ORIGIN, with a STANDIN marker.
  "$py" - "$(find_torch_dir)/lib" <<'PY' >&2
import glob, os, re, subprocess, sys, tempfile
lib = sys.argv[1]
def run(*a): return subprocess.run(a, capture_output=True, text=True).stdout
def symbols(path, which): return [l.split()[-2:] for l in run("nm", "-D", which, path).splitlines() if l.strip()]
# What `import torch` loads: torch._C and its dependency closure, into this interpreter.
ext = glob.glob(os.path.join(lib, "..", "_C.*.so"))[0]
closure = run("ldd", ext)
missing = sorted(set(re.findall(r"^\s*(\S+) => not found", closure, re.M)))
found = re.findall(r"=> (/\S+)", closure)
if not missing:
    sys.exit(0)
interpreter = [os.path.realpath(sys.executable)] + re.findall(r"=> (/\S+)", run("ldd", sys.executable))
defined = {sym.split("@")[0] for path in found + [ext] + interpreter for _, sym in symbols(path, "--defined-only")}
wanted = {}   # symbol -> version node ("" when unversioned) that no loaded library defines
for path in [ext] + [p for p in found if os.path.realpath(p).startswith(os.path.realpath(lib))]:
    for kind, sym in symbols(path, "--undefined-only"):
        base, _, ver = sym.partition("@")
        if kind == "U" and base not in defined:
            wanted[base] = ver.lstrip("@")
print(f"setup-libtorch: compiling load-only stand-ins for {sorted(missing)} ({len(wanted)} symbols) into {lib}")
with tempfile.TemporaryDirectory() as tmp:
    c = os.path.join(tmp, "standin.c")
    with open(c, "w") as f:
        f.write("#include <stdio.h>\n#include <stdlib.h>\n")
        f.write("static void standin(const char* s) { fprintf(stderr, \"%s: a load-only stand-in of tools/setup-libtorch.sh was called; install the real CUDA library\\n\", s); abort(); }\n")
        for sym in sorted(wanted):
            f.write(f"void {sym}(void) {{ standin(\"{sym}\"); }}\n")
    vmap = os.path.join(tmp, "standin.map")
    with open(vmap, "w") as f:
        for ver in sorted({v for v in wanted.values() if v}):
            f.write(f"{ver} {{ global: {'; '.join(s for s, v in sorted(wanted.items()) if v == ver)}; }};\n")
    for soname in missing:
        out = os.path.join(lib, soname)
        subprocess.run(["cc", "-shared", "-fPIC", "-O1", c, "-o", out, f"-Wl,-soname,{soname}"] +
                       ([f"-Wl,--version-script={vmap}"] if os.path.getsize(vmap) else []), check=True)
        with open(os.path.join(lib, "STANDIN-" + soname + ".txt"), "w") as f:
            f.write("A load-only stand-in compiled by tools/setup-libtorch.sh (Note [Load-only stand-ins]).\n")
PY
  "$py" -c 'import torch' >&2 || echo "setup-libtorch: warning: 'import torch' still fails (LibTorch's C++ files are usable)" >&2
fi
dir=$(find_torch_dir) || { echo "setup-libtorch: torch installed but $venv has no torch/include or torch/lib/libtorch_cpu.so" >&2; exit 1; }
echo "$dir"

#!/usr/bin/env bash
# Installs what is missing, then configures build/ once (later runs reuse it).
# Extra arguments go to `meson setup` on the first run.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
# The Python peers (numpy, safetensors, onnx, onnxruntime) some tests compare against.
tools/setup-venv.sh > /dev/null
if [ ! -f build/build.ninja ]; then
  # Meson before 1.4 gives nvcc no dependency flags: the wrapper adds them, so that editing
  # a header rebuilds the CUDA objects that include it. Meson of that age takes the CUDA
  # compiler from a native file only (not from an NVCC variable).
  native_file=()
  if command -v nvcc > /dev/null &&
     [ "$(printf '%s\n1.4\n' "$(meson --version)" | sort -V | head -1)" != 1.4 ]; then
    mkdir -p build
    printf "[binaries]\ncuda = '%s'\n" "$PWD/tools/nvcc-with-depfile" > build/nvcc-with-depfile.ini
    native_file=(--native-file build/nvcc-with-depfile.ini)
  fi
  meson setup build "${native_file[@]}" "$@"
fi

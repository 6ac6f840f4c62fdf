#!/usr/bin/env bash
# Installs from Debian's registry what a fresh machine lacks to build and test tensorgen.
# Idempotent: when everything is present it installs nothing and says so.
# CUDA is not installed here: the build compiles the CUDA backend when it finds nvcc (NVIDIA's
# toolkit, e.g. /usr/local/cuda; Debian's nvidia-cuda-toolkit is not needed) and builds and
# tests everything else without it. See docs/cuda.md.
set -euo pipefail

packages=(
  meson ninja-build pkg-config g++
  libyaml-cpp-dev doctest-dev
  python3 python3-yaml python3-jinja2 python3-venv
  libopenblas-dev
  gcovr
  ccache  # Meson uses it when present: the emulated leg reuses the normal build's CPU objects
)
# Callers add what only their build needs (tools/configure-sanitized.sh: clang and its runtime).
packages+=("$@")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all build dependencies present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo_cmd apt-get update -qq
$sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"

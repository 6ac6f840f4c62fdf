#!/usr/bin/env bash
# tools/nvcc-with-depfile, the CUDA compiler tools/configure.sh names when Meson is older
# than 1.4: compiling writes <object>.d, the file Meson's ninja rule reads, naming the
# object and every header it includes; other calls (version queries) pass through.
# Usage: nvcc_depfile.sh WRAPPER
set -euo pipefail
wrapper=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/objects"
echo '#define PROBE_VALUE 1' > "$work/probe_header.h"
printf '#include "probe_header.h"\n__global__ void probe(int* p) { *p = PROBE_VALUE; }\n' > "$work/probe.cu"
(cd "$work" && "$wrapper" -c probe.cu -o objects/probe.cu.o)
depfile="$work/objects/probe.cu.o.d"
[ -f "$depfile" ] || { echo "no dependency file at objects/probe.cu.o.d"; ls -R "$work"; exit 1; }
grep -q '^objects/probe.cu.o *:' "$depfile" || { echo "the dependency file does not name the object:"; head -3 "$depfile"; exit 1; }
grep -q 'probe_header.h' "$depfile" || { echo "the dependency file does not list the included header"; exit 1; }
"$wrapper" --version | grep -q 'Cuda compilation tools' || { echo "nvcc --version did not pass through"; exit 1; }
echo "nvcc-with-depfile wrote objects/probe.cu.o.d with the included header"

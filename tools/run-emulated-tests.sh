#!/usr/bin/env bash
# The emulated-CUDA leg alone (docs/cuda.md, "Host emulation"): build-emu with the CUDA backend
# compiled against the host emulation. By default what CI runs (the cuda suite, graphs_cuda,
# unit_autograd and the conformance suite's cpu_cuda checks); with --full everything (the whole
# unit, conformance, cuda and graphs suites). The last line is "N passed, N failed". TG_EMULATED_BUILD_DIR
# overrides build-emu.
full=0
if [ "${1:-}" = --full ]; then full=1; elif [ $# -gt 0 ]; then
  echo "usage: $0 [--full]" >&2
  exit 2
fi
exec env TG_CI_LEGS=emulated TG_EMULATED_FULL=$full "$(dirname "$0")/run-tests.sh"

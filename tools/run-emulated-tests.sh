#!/usr/bin/env bash
# The emulated-CUDA leg alone (docs/cuda.md, "Host emulation"): build-emu with the CUDA backend
# compiled against the host emulation, then its unit, conformance and cuda suites. The last
# line is "N passed, N failed". TG_EMULATED_BUILD_DIR overrides build-emu.
exec env TG_CI_LEGS=emulated "$(dirname "$0")/run-tests.sh"

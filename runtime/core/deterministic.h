// Deterministic algorithms: with tg::use_deterministic_algorithms(true), every kernel gives
// the same bits on every run for the same inputs (PyTorch's torch.use_deterministic_algorithms).
// Kernels whose additions into one location happen in no fixed order (the CUDA scatter-adds
// through atomics) then take an ordered path. Process-wide; any thread may set or read it.
#pragma once

namespace tg {

void use_deterministic_algorithms(bool enabled);
bool are_deterministic_algorithms_enabled();

}  // namespace tg

// Pinned (page-locked) host memory in the CUDA-free core: CPU memory a device's copy engine
// reads and writes directly, so host<->device copies from and to it can be asynchronous.
// Only a device driver can pin memory, so the allocator is installed here by the CUDA runtime
// when it is loaded (cuda/cuda_hooks.cpp), as PyTorch's CUDAHooks provide the pinned memory
// allocator to ATen. Invariant: is_pinned_memory(d) <=> d came from pinned_memory_allocator().
#pragma once

#include <string_view>

#include "core/allocator.h"

namespace tg {

// Throws tg::Error naming `op` when no device can pin memory.
using CheckPinnableFn = void (*)(std::string_view op);
using IsPinnedFn = bool (*)(const DataPtr& data);

// Called once by the CUDA runtime's static initialisation: its pinned allocator, the check
// made before it is used, and the test of a DataPtr.
void set_pinned_memory_hooks(Allocator* allocator, CheckPinnableFn check, IsPinnedFn is_pinned);

// The allocator of pinned CPU memory for `op` (pin_memory=true, Tensor::pin_memory()). Throws
// tg::Error "CUDA is not available: [op] ..." saying why, in a build without the CUDA backend
// or on a machine without a GPU.
Allocator* pinned_memory_allocator(std::string_view op);

// Whether `data` is pinned memory from that allocator; false for any other memory, and in a
// build without the CUDA backend.
bool is_pinned_memory(const DataPtr& data);

// Whether `allocator` is the pinned allocator (a storage from it grows pinned); false for
// nullptr and without a CUDA runtime.
bool is_pinned_memory_allocator(const Allocator* allocator);

}  // namespace tg

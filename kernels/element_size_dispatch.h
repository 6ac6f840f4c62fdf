// dispatch_element_size: kernels that only move elements (gathers, scatters, copies by index)
// are compiled once per element size (1, 2, 4, 8 bytes), not per dtype. Shared by the CPU and
// CUDA kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/error.h"
#include "dtype_dispatch.h"

namespace tg {

// Calls body(TypeTag<U>{}) with U the unsigned integer of `size` bytes.
template <typename Body>
void dispatch_element_size(size_t size, Body&& body) {
  switch (size) {
    case 1: return body(TypeTag<uint8_t>{});
    case 2: return body(TypeTag<uint16_t>{});
    case 4: return body(TypeTag<uint32_t>{});
    case 8: return body(TypeTag<uint64_t>{});
    default: TG_INTERNAL_ASSERT(false, "no element type of ", size, " bytes");
  }
}

}  // namespace tg

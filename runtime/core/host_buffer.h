// host_buffer: a std::vector sized by a user-given count, for kernels' scratch memory.
// Invariant: it either holds `count` elements or raises a tg:: error; std::bad_alloc and
// std::length_error (a count past vector::max_size) never escape to the user.
#pragma once

#include <cstdint>
#include <new>
#include <stdexcept>
#include <vector>

#include "core/error.h"

namespace tg {

template <typename T>
std::vector<T> host_buffer(const char* op, int64_t count, const T& value = T()) {
  TG_CHECK_VALUE(count >= 0, "[", op, "] expected a non-negative element count, got ", count);
  try {
    return std::vector<T>(static_cast<size_t>(count), value);
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  // Out of line of the catch blocks so that the error carries no nested exception.
  TG_THROW(OutOfMemoryError, "[", op, "] could not allocate a host buffer of ", count, " elements of ", sizeof(T),
           " bytes");
}

}  // namespace tg

// host_buffer: a vector sized by a user-given count, for kernels' scratch memory.
// Invariant: it either holds `count` elements or raises tg::OutOfMemoryError; std::bad_alloc
// and std::length_error (a count past max_size) never escape to the user.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <vector>

#include "core/error.h"

namespace tg {

// Allocates with the nothrow operator new and raises tg::OutOfMemoryError itself: a throwing
// new that fails is reported by AddressSanitizer as a fatal out-of-memory even where a null
// return is allowed (allocator_may_return_null=1), so the sanitized leg could not test the
// error an impossible request must give.
template <typename T>
struct HostAllocator {
  using value_type = T;
  HostAllocator() = default;
  template <typename U>
  HostAllocator(const HostAllocator<U>&) noexcept {}  // NOLINT: rebinding, as std::allocator
  T* allocate(size_t n) {
    void* data = n <= SIZE_MAX / sizeof(T) ? ::operator new(n * sizeof(T), std::nothrow) : nullptr;
    if (data == nullptr) TG_THROW(OutOfMemoryError, "[host_buffer] could not allocate ", n, " elements of ", sizeof(T), " bytes");
    return static_cast<T*>(data);
  }
  void deallocate(T* data, size_t) noexcept { ::operator delete(data); }
  friend bool operator==(const HostAllocator&, const HostAllocator&) noexcept { return true; }
};

template <typename T>
using HostVector = std::vector<T, HostAllocator<T>>;

template <typename T>
HostVector<T> host_buffer(const char* op, int64_t count, const T& value = T()) {
  TG_CHECK_VALUE(count >= 0, "[", op, "] expected a non-negative element count, got ", count);
  try {
    return HostVector<T>(static_cast<size_t>(count), value);
  } catch (const std::length_error&) {
  }
  // Out of line of the catch block so that the error carries no nested exception.
  TG_THROW(OutOfMemoryError, "[", op, "] could not allocate a host buffer of ", count, " elements of ", sizeof(T),
           " bytes");
}

}  // namespace tg

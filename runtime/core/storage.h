// Storage: the ref-counted memory behind one or more tensors (a base and all its views).
// It owns a DataPtr of nbytes bytes, and the version counter that tensors sharing it see:
// views and detach() share storage, so they share versions, as PyTorch's views do.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/allocator.h"
#include "core/intrusive_ptr.h"

namespace tg {

class StorageImpl : public RefCounted {
 public:
  StorageImpl(DataPtr data_ptr, size_t nbytes, Allocator* allocator)
      : data_ptr_(std::move(data_ptr)), nbytes_(nbytes), allocator_(allocator) {}

  void* data() const noexcept { return data_ptr_.get(); }
  size_t nbytes() const noexcept { return nbytes_; }
  Device device() const noexcept { return data_ptr_.device(); }
  Allocator* allocator() const noexcept { return allocator_; }
  const DataPtr& data_ptr() const noexcept { return data_ptr_; }
  // Storage over memory the user owns (from_blob) has no allocator and cannot grow.
  bool resizable() const noexcept { return allocator_ != nullptr; }

  // Grows to at least nbytes, keeping the old bytes (what out= resizing needs).
  // Throws tg::Error for a storage that is not resizable.
  void grow_to(size_t nbytes);

  uint32_t version() const noexcept { return version_.load(std::memory_order_relaxed); }
  void bump_version() noexcept { version_.fetch_add(1, std::memory_order_relaxed); }
  // Back to version 0, for a storage that only the factory filling it has seen (a fresh
  // tensor's version is 0 in LibTorch, although the factory wrote it with fill_).
  void reset_version() noexcept { version_.store(0, std::memory_order_relaxed); }

 private:
  DataPtr data_ptr_;
  size_t nbytes_;
  Allocator* allocator_;
  std::atomic<uint32_t> version_{0};
};

using Storage = IntrusivePtr<StorageImpl>;

// A new storage of nbytes from the allocator of `device`'s type.
Storage make_storage(size_t nbytes, Device device);

}  // namespace tg

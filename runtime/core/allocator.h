// Allocator and DataPtr: how tensor memory is obtained and given back.
// A DataPtr owns one allocation: `data` is what kernels use, `context` is what the deleter
// needs (often the same pointer), and the deleter runs exactly once, when the DataPtr dies.
#pragma once

#include <cstddef>
#include <utility>

#include "core/device.h"

namespace tg {

using DeleterFn = void (*)(void* context);

class DataPtr {
 public:
  DataPtr() = default;
  DataPtr(void* data, void* context, DeleterFn deleter, Device device)
      : data_(data), context_(context), deleter_(deleter), device_(device) {}
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  DataPtr(DataPtr&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        context_(std::exchange(other.context_, nullptr)),
        deleter_(std::exchange(other.deleter_, nullptr)),
        device_(other.device_) {}
  DataPtr& operator=(DataPtr&& other) noexcept {
    DataPtr(std::move(other)).swap(*this);
    return *this;
  }
  ~DataPtr() {
    if (deleter_) deleter_(context_);
  }

  void* get() const noexcept { return data_; }
  void* context() const noexcept { return context_; }
  DeleterFn deleter() const noexcept { return deleter_; }
  Device device() const noexcept { return device_; }
  explicit operator bool() const noexcept { return data_ != nullptr; }

  void swap(DataPtr& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(context_, other.context_);
    std::swap(deleter_, other.deleter_);
    std::swap(device_, other.device_);
  }

 private:
  void* data_ = nullptr;
  void* context_ = nullptr;
  DeleterFn deleter_ = nullptr;
  Device device_{DeviceType::CPU};
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns memory for nbytes bytes (a null DataPtr with the right device for 0 bytes).
  // Throws tg::OutOfMemoryError, with the size asked for, when it cannot.
  virtual DataPtr allocate(size_t nbytes) = 0;
};

// The allocator used for new tensors on a device type. Set once at start-up by a backend
// (the CUDA backend installs its caching allocator); reads are lock-free.
Allocator* get_allocator(DeviceType type);
void set_allocator(DeviceType type, Allocator* allocator);

// The default CPU allocator: 64-byte aligned, so every row a kernel vectorises starts on a
// cache line when the tensor does.
constexpr size_t kCpuAlignment = 64;
Allocator* cpu_allocator();

}  // namespace tg

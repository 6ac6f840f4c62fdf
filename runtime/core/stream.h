// Stream: an ordered queue of work on one device, named (device, id). Work submitted to one
// stream runs in submission order; work on two streams is ordered only through events.
// Ids are the backend's (CUDA: 0 is the device's default stream, then its pool's streams).
// The CPU has no streams: every CPU operation completes before it returns.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>

#include "core/device.h"

namespace tg {

class Stream {
 public:
  using Id = int64_t;

  Stream(Device device, Id id) : device_(device), id_(id) {}

  Device device() const noexcept { return device_; }
  Device::Index device_index() const noexcept { return device_.index(); }
  Id id() const noexcept { return id_; }

  bool operator==(const Stream& other) const noexcept { return device_ == other.device_ && id_ == other.id_; }
  bool operator!=(const Stream& other) const noexcept { return !(*this == other); }

 private:
  Device device_;
  Id id_;
};

// "stream 3 on cuda:0"
std::ostream& operator<<(std::ostream& out, const Stream& stream);

}  // namespace tg

template <>
struct std::hash<tg::Stream> {
  size_t operator()(const tg::Stream& s) const noexcept {
    return std::hash<tg::Device>()(s.device()) ^ (static_cast<size_t>(s.id()) << 16);
  }
};

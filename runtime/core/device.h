// Device: where a tensor's memory lives, a type (cpu, cuda) and an index.
// Invariant: index == -1 means "the current device of that type"; a cpu device has index -1 or 0.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace tg {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr int kNumDeviceTypes = 2;
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;

std::string_view to_string(DeviceType type);
std::ostream& operator<<(std::ostream& out, DeviceType type);

class Device {
 public:
  using Index = int8_t;

  // Inline, with the message out of line: every autograd node and result storage makes one.
  Device(DeviceType type, Index index = -1) : type_(type), index_(index) {  // NOLINT: implicit like c10::Device
    if (index < -1 || (type == DeviceType::CPU && index > 0)) [[unlikely]] invalid_index(type, index);
  }
  // Parses "cpu", "cuda", "cuda:1"; throws tg::ValueError with the expected form.
  Device(std::string_view text);   // NOLINT
  Device(const char* text) : Device(std::string_view(text)) {}  // NOLINT

  DeviceType type() const noexcept { return type_; }
  Index index() const noexcept { return index_; }
  bool has_index() const noexcept { return index_ != -1; }
  bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
  bool is_cuda() const noexcept { return type_ == DeviceType::CUDA; }
  std::string str() const;

  bool operator==(const Device& other) const noexcept {
    return type_ == other.type_ && index_ == other.index_;
  }
  bool operator!=(const Device& other) const noexcept { return !(*this == other); }

 private:
  [[noreturn]] static void invalid_index(DeviceType type, Index index);

  DeviceType type_;
  Index index_;
};

std::ostream& operator<<(std::ostream& out, const Device& device);

}  // namespace tg

template <>
struct std::hash<tg::Device> {
  size_t operator()(const tg::Device& d) const noexcept {
    return static_cast<size_t>(d.type()) * 256 + static_cast<uint8_t>(d.index());
  }
};

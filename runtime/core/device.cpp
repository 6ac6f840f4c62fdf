#include "core/device.h"

#include <charconv>

#include "core/error.h"

namespace tg {

std::string_view to_string(DeviceType type) {
  switch (type) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::CUDA: return "cuda";
  }
  return "invalid";
}

std::ostream& operator<<(std::ostream& out, DeviceType type) { return out << to_string(type); }

void Device::invalid_index(DeviceType type, Index index) {
  TG_CHECK_VALUE(index >= -1, "[Device] device index must be -1 (current) or non-negative, got ",
                 static_cast<int>(index));
  TG_CHECK_VALUE(type != DeviceType::CPU || index <= 0, "[Device] cpu device index must be -1 or 0, got ",
                 static_cast<int>(index));
  TG_INTERNAL_ASSERT(false, "Device::invalid_index called for a valid index");
}

namespace {
Device parse_device(std::string_view text) {
  auto colon = text.find(':');
  std::string_view type_name = text.substr(0, colon);
  DeviceType type;
  if (type_name == "cpu") {
    type = DeviceType::CPU;
  } else if (type_name == "cuda") {
    type = DeviceType::CUDA;
  } else {
    TG_THROW(ValueError, "[Device] expected a device string like 'cpu', 'cuda' or 'cuda:1', got '", text, "'");
  }
  if (colon == std::string_view::npos) return Device(type);
  std::string_view index_text = text.substr(colon + 1);
  int index = -1;
  auto [end, ec] = std::from_chars(index_text.data(), index_text.data() + index_text.size(), index);
  TG_CHECK_VALUE(ec == std::errc() && end == index_text.data() + index_text.size() && !index_text.empty() &&
                     index >= 0 && index < 128,
                 "[Device] expected a device index between 0 and 127 after ':', got '", text, "'");
  return Device(type, static_cast<Device::Index>(index));
}
}  // namespace

Device::Device(std::string_view text) : Device(parse_device(text)) {}

std::string Device::str() const {
  std::string s(to_string(type_));
  if (has_index()) s += ":" + std::to_string(index_);
  return s;
}

std::ostream& operator<<(std::ostream& out, const Device& device) { return out << device.str(); }

}  // namespace tg

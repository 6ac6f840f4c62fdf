// TensorOptions: the optional dtype, device, layout and requires_grad of a new tensor,
// built fluently as in LibTorch: tg::TensorOptions().dtype(tg::kFloat).device("cuda:0").
// An unset field means "the default": default_dtype(), cpu, strided, no grad.
#pragma once

#include <optional>
#include <ostream>

#include "core/device.h"
#include "core/scalar_type.h"

namespace tg {

enum class Layout : int8_t { Strided = 0 };
constexpr Layout kStrided = Layout::Strided;

enum class MemoryFormat : int8_t { Contiguous = 0, Preserve = 1 };
constexpr MemoryFormat kContiguousFormat = MemoryFormat::Contiguous;
constexpr MemoryFormat kPreserveFormat = MemoryFormat::Preserve;

std::ostream& operator<<(std::ostream& out, Layout layout);
std::ostream& operator<<(std::ostream& out, MemoryFormat format);

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType dtype) : dtype_(dtype) {}            // NOLINT: implicit like LibTorch
  TensorOptions(Device device) : device_(device) {}            // NOLINT
  TensorOptions(DeviceType type) : device_(Device(type)) {}    // NOLINT
  TensorOptions(const char* device) : device_(Device(device)) {}  // NOLINT
  TensorOptions(Layout layout) : layout_(layout) {}            // NOLINT

  TensorOptions dtype(std::optional<ScalarType> dtype) const { return with([&](auto& o) { o.dtype_ = dtype; }); }
  TensorOptions device(std::optional<Device> device) const { return with([&](auto& o) { o.device_ = device; }); }
  TensorOptions layout(std::optional<Layout> layout) const { return with([&](auto& o) { o.layout_ = layout; }); }
  TensorOptions requires_grad(std::optional<bool> value) const {
    return with([&](auto& o) { o.requires_grad_ = value.value_or(false); });
  }
  TensorOptions pinned_memory(std::optional<bool> value) const {
    return with([&](auto& o) { o.pinned_memory_ = value; });
  }

  ScalarType dtype() const { return dtype_.value_or(default_dtype()); }
  Device device() const { return device_.value_or(Device(DeviceType::CPU)); }
  Layout layout() const { return layout_.value_or(Layout::Strided); }
  bool requires_grad() const { return requires_grad_; }
  bool pinned_memory() const { return pinned_memory_.value_or(false); }

  std::optional<ScalarType> dtype_opt() const { return dtype_; }
  std::optional<Device> device_opt() const { return device_; }
  std::optional<Layout> layout_opt() const { return layout_; }
  std::optional<bool> pinned_memory_opt() const { return pinned_memory_; }
  bool has_dtype() const { return dtype_.has_value(); }
  bool has_device() const { return device_.has_value(); }

  // Fields set in `other` override this one's (LibTorch's merge_in).
  TensorOptions merge_in(const TensorOptions& other) const;

 private:
  template <typename F>
  TensorOptions with(F&& f) const {
    TensorOptions copy = *this;
    f(copy);
    return copy;
  }

  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  std::optional<Layout> layout_;
  bool requires_grad_ = false;
  std::optional<bool> pinned_memory_;
};

inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions layout(Layout l) { return TensorOptions().layout(l); }
inline TensorOptions requires_grad(bool value = true) { return TensorOptions().requires_grad(value); }

std::ostream& operator<<(std::ostream& out, const TensorOptions& options);

}  // namespace tg

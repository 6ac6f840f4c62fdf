#include "core/tensor_options.h"

namespace tg {

std::ostream& operator<<(std::ostream& out, Layout) { return out << "strided"; }

std::ostream& operator<<(std::ostream& out, MemoryFormat format) {
  return out << (format == MemoryFormat::Contiguous ? "contiguous_format" : "preserve_format");
}

TensorOptions TensorOptions::merge_in(const TensorOptions& other) const {
  TensorOptions merged = *this;
  if (other.dtype_) merged.dtype_ = other.dtype_;
  if (other.device_) merged.device_ = other.device_;
  if (other.layout_) merged.layout_ = other.layout_;
  merged.requires_grad_ = requires_grad_ || other.requires_grad_;
  if (other.pinned_memory_) merged.pinned_memory_ = other.pinned_memory_;
  return merged;
}

std::ostream& operator<<(std::ostream& out, const TensorOptions& options) {
  return out << "TensorOptions(dtype=" << options.dtype() << ", device=" << options.device()
             << ", layout=" << options.layout() << ", requires_grad=" << (options.requires_grad() ? "true" : "false")
             << ")";
}

}  // namespace tg

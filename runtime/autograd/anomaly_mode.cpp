#include "autograd/anomaly_mode.h"

#include <cxxabi.h>
#include <execinfo.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <memory>
#include <sstream>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/error.h"
#include "tensorgen/ops.h"

namespace tg::autograd {

namespace {

std::atomic<bool> anomaly_enabled{false};

// "module(_ZN2tg3mulE+0x1f) [0x...]" -> "tg::mul" (or the line as it is when it has no symbol).
std::string demangle_frame(const char* frame) {
  std::string text(frame);
  const size_t open = text.find('(');
  const size_t plus = text.find('+', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || plus == std::string::npos || plus == open + 1) return text;
  const std::string mangled = text.substr(open + 1, plus - open - 1);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                   std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : mangled;
}

// "NativeLayerNormBackward0" -> "native_layer_norm": generated nodes are named after the
// forward operator in CamelCase plus "Backward<n>"; other nodes keep their name.
std::string forward_operator_name(const std::string& node_name) {
  const size_t backward = node_name.rfind("Backward");
  if (backward == std::string::npos || backward == 0) return node_name;
  std::string result;
  for (size_t i = 0; i < backward; ++i) {
    const char c = node_name[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (i > 0) result += '_';
      result += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      result += c;
    }
  }
  return result;
}

}  // namespace

bool AnomalyMode::is_enabled() noexcept { return anomaly_enabled.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool enabled) noexcept { anomaly_enabled.store(enabled, std::memory_order_relaxed); }

DetectAnomalyGuard::DetectAnomalyGuard() : previous_(AnomalyMode::is_enabled()) { AnomalyMode::set_enabled(true); }
DetectAnomalyGuard::~DetectAnomalyGuard() { AnomalyMode::set_enabled(previous_); }

std::string current_backtrace(int skip_frames) {
  constexpr int kMaxFrames = 64;
  void* frames[kMaxFrames];
  const int count = ::backtrace(frames, kMaxFrames);
  std::unique_ptr<char*, void (*)(void*)> symbols(::backtrace_symbols(frames, count), std::free);
  std::ostringstream out;
  for (int i = skip_frames; i < count; ++i) {
    out << "  #" << (i - skip_frames) << ' ' << (symbols ? demangle_frame(symbols.get()[i]) : "?") << '\n';
  }
  return out.str();
}

void check_gradient_is_finite(const Node& node, size_t index, const Tensor& grad) {
  if (!grad.defined() || !is_floating_type(grad.scalar_type()) || grad.numel() == 0) return;
  NoGradGuard no_grad;
  const bool has_nan = (grad != grad).any().item<bool>();
  const bool has_inf = !has_nan && (grad.abs() == std::numeric_limits<double>::infinity()).any().item<bool>();
  if (!has_nan && !has_inf) return;
  const AnomalyMetadata* metadata = node.anomaly_metadata();
  TG_ERROR("Function '", node.name(), "' returned ", has_nan ? "nan" : "inf", " values in its ", index,
           "th output. It differentiates the forward operator '", forward_operator_name(node.name()), "'",
           metadata != nullptr ? ", which was called at:\n" + metadata->creation_backtrace
                               : " (made before anomaly detection was enabled, so where it was called is unknown)");
}

}  // namespace tg::autograd

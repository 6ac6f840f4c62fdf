// Anomaly detection, as LibTorch's: while enabled, each node made records where it was made
// (the forward call's backtrace), and backward fails at the first node whose gradient output
// holds a NaN or an Inf, naming the node, the forward operator it differentiates and that
// backtrace. Off by default; it costs a backtrace per node and a scan of every gradient.
// Threading: the flag is process-wide (an atomic), as in PyTorch; a guard restores the state
// it found, so guards nest but should not overlap across threads.
#pragma once

#include <string>

#include "core/tensor.h"

namespace tg::autograd {

class Node;

struct AnomalyMode {
  static bool is_enabled() noexcept;
  static void set_enabled(bool enabled) noexcept;
};

// RAII: anomaly detection on for the guard's scope.
class DetectAnomalyGuard {
 public:
  DetectAnomalyGuard();
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool previous_;
};

// What a node records when it is made in anomaly mode.
struct AnomalyMetadata {
  std::string creation_backtrace;  // demangled frames of the forward call, innermost first
};

// The backtrace of the calling thread, one demangled frame per line (frames of the caller's
// own program need -rdynamic, meson's export_dynamic, to have names).
std::string current_backtrace(int skip_frames = 1);

// Throws tg::Error when `grad` (output `index` of `node`) has a NaN or an Inf; called by the
// engine after each node in anomaly mode.
void check_gradient_is_finite(const Node& node, size_t index, const Tensor& grad);

// LibTorch's free functions.
inline void set_detect_anomaly(bool enabled) noexcept { AnomalyMode::set_enabled(enabled); }
inline bool is_detect_anomaly_enabled() noexcept { return AnomalyMode::is_enabled(); }
}  // namespace tg::autograd

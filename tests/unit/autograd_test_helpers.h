// Helpers the autograd runtime tests share: float tensors from values and back (read
// through the tensor's strides, so no kernel is involved), error text, and hand-written
// nodes that let the engine be tested without generated backward kernels.
#pragma once

#include <doctest/doctest.h>

#include <atomic>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "autograd/autograd.h"
#include "autograd/autograd_meta.h"
#include "autograd/node.h"
#include "autograd/saved_variable.h"
#include "autograd/variable_type_utils.h"

namespace autograd_test {

using tg::Tensor;
using tg::autograd::Edge;
using tg::autograd::edge_list;
using tg::autograd::Node;
using tg::autograd::variable_list;
namespace impl = tg::autograd::impl;

// A new float tensor holding `values` with the given shape (1-d when sizes is empty).
inline Tensor floats(std::vector<float> values, std::vector<int64_t> sizes = {}) {
  if (sizes.empty()) sizes = {static_cast<int64_t>(values.size())};
  Tensor t = tg::make_empty_tensor(sizes, tg::kFloat, tg::Device(tg::kCPU));
  // Plain checks, not doctest's: these helpers also run on the threads of the threading test.
  if (t.numel() != static_cast<int64_t>(values.size())) throw std::logic_error("floats: values do not fill the shape");
  float* data = t.data_ptr<float>();
  for (size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  return t;
}

inline Tensor leaf(std::vector<float> values, std::vector<int64_t> sizes = {}) {
  Tensor t = floats(std::move(values), std::move(sizes));
  t.requires_grad_();
  return t;
}

// Every element in row-major order, read through the strides; a float tensor is expected.
inline std::vector<float> values(const Tensor& t) {
  if (!t.defined() || t.scalar_type() != tg::kFloat) throw std::logic_error("values: expected a float tensor");
  std::vector<float> out;
  const float* base = t.data_ptr<float>();
  std::vector<int64_t> index(t.dim(), 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t offset = 0;
    for (int64_t d = 0; d < t.dim(); ++d) offset += index[d] * t.stride(d);
    out.push_back(base[offset]);
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      if (++index[d] < t.size(d)) break;
      index[d] = 0;
    }
  }
  return out;
}

// The message of the tg::Error `f` throws (without the source location), or "" if none.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const tg::Error& e) {
    return e.message();
  }
  return "";
}

// A fresh float tensor equal to `grad` times `factor`, computed element by element.
inline Tensor scaled(const Tensor& grad, float factor) {
  std::vector<float> v = values(grad);
  for (float& x : v) x *= factor;
  return floats(v, grad.sizes().vec());
}

// A node that multiplies the gradient of its one output by `factor` and sends the result
// to each of its inputs; it counts its runs and can log its name into a shared trace.
class ScaleNode : public Node {
 public:
  ScaleNode(std::string name, float factor, edge_list next_edges, std::vector<std::string>* trace = nullptr)
      : Node(std::move(next_edges)), name_(std::move(name)), factor_(factor), trace_(trace) {}
  std::string name() const override { return name_; }

  std::atomic<int> runs{0};
  std::vector<float> received;      // the gradient of the last run
  bool grad_mode_seen = false;      // GradMode::is_enabled() during the last run
  const void* returned_data = nullptr;  // storage of the gradient returned by the last run
  bool keep_returned = false;       // keep a reference to what it returns (so nobody may steal it)
  Tensor kept;

 protected:
  variable_list apply(variable_list&& grads) override {
    ++runs;
    grad_mode_seen = tg::GradMode::is_enabled();
    if (trace_ != nullptr) trace_->push_back(name_);
    if (grads.empty() || !grads[0].defined()) return variable_list(num_outputs());
    received = values(grads[0]);
    variable_list out;
    for (size_t i = 0; i < num_outputs(); ++i) out.push_back(scaled(grads[0], factor_));
    if (!out.empty()) returned_data = out[0].data_ptr();
    if (keep_returned && !out.empty()) kept = out[0];
    return out;
  }

 private:
  std::string name_;
  float factor_;
  std::vector<std::string>* trace_;
};

// A node that saves a tensor and unpacks it on each run (so it fails after release and
// after an in-place change of the tensor); passes the gradient through unchanged.
class SavingNode : public Node {
 public:
  SavingNode(std::string name, edge_list next_edges) : Node(std::move(next_edges)), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void release_variables() override { saved.reset_data(); }

  tg::autograd::SavedVariable saved;
  Tensor unpacked;

 protected:
  variable_list apply(variable_list&& grads) override {
    unpacked = saved.unpack(shared_from_this());
    return variable_list(num_outputs(), grads[0]);
  }

 private:
  std::string name_;
};

// A node that returns whatever its function gives (for malformed-output tests).
class LambdaNode : public Node {
 public:
  LambdaNode(std::string name, edge_list next_edges, std::function<variable_list(variable_list&)> fn)
      : Node(std::move(next_edges)), name_(std::move(name)), fn_(std::move(fn)) {}
  std::string name() const override { return name_; }

 protected:
  variable_list apply(variable_list&& grads) override { return fn_(grads); }

 private:
  std::string name_;
  std::function<variable_list(variable_list&)> fn_;
};

// A new tensor of `value` recorded as the (next) output of `node`.
inline Tensor output_of(const std::shared_ptr<Node>& node, std::vector<float> value, std::vector<int64_t> sizes = {}) {
  Tensor out = floats(std::move(value), std::move(sizes));
  tg::autograd::set_history(out, node);
  return out;
}

}  // namespace autograd_test

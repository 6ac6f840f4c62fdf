// Transforms, as LibTorch's torch::data::transforms: a BatchTransform maps a whole batch; a
// Transform maps each example of a batch; a TensorTransform maps the data tensor of each
// example. Stack collates a batch of examples into one example of stacked tensors; Normalize
// computes (data - mean) / stddev with per-channel values broadcast over [C, 1, 1].
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "core/error.h"
#include "data/example.h"
#include "tensorgen/ops.h"

namespace tg::data::transforms {

template <typename InputBatch, typename OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;
  virtual ~BatchTransform() = default;
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

template <typename Input, typename Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;
  virtual OutputType apply(InputType input) = 0;
  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> output;
    output.reserve(input_batch.size());
    for (auto& input : input_batch) output.push_back(apply(std::move(input)));
    return output;
  }
};

// A Transform of each example by a function.
template <typename Input, typename Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;
  explicit Lambda(FunctionType function) : function_(std::move(function)) {}
  Output apply(Input input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

// A BatchTransform by a function.
template <typename Input, typename Output = Input>
class BatchLambda : public BatchTransform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;
  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}
  Output apply_batch(Input input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

template <typename Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;
  virtual Tensor operator()(Tensor input) = 0;
  E apply(E input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

template <typename Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;
  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}
  Tensor operator()(Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

template <typename Target = Tensor>
class Normalize : public TensorTransform<Target> {
 public:
  // One mean and stddev for all channels, or one per channel (the data's dimension -3).
  Normalize(double mean, double stddev) : Normalize(std::vector<double>{mean}, std::vector<double>{stddev}) {}
  Normalize(const std::vector<double>& mean, const std::vector<double>& stddev) {
    TG_CHECK_VALUE(!mean.empty() && mean.size() == stddev.size(), "[Normalize] expected as many means as ",
                   "standard deviations (at least one), got ", mean.size(), " and ", stddev.size());
    for (double s : stddev) TG_CHECK_VALUE(s != 0, "[Normalize] expected non-zero standard deviations, got 0");
    const int64_t channels = static_cast<int64_t>(mean.size());
    this->mean = tg::tensor(mean, TensorOptions().dtype(kFloat)).reshape({channels, 1, 1});
    this->stddev = tg::tensor(stddev, TensorOptions().dtype(kFloat)).reshape({channels, 1, 1});
  }
  Tensor operator()(Tensor input) override { return input.sub(mean).div(stddev); }

  // [C, 1, 1] float tensors (LibTorch's public members).
  Tensor mean, stddev;
};

// The collation of a batch of examples into one (a BatchTransform from std::vector<T> to T).
template <typename BatchType, typename T = std::vector<BatchType>>
using Collation = BatchTransform<T, BatchType>;

template <typename T = Example<>>
struct Stack;

template <>
struct Stack<Example<>> : public Collation<Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    TG_CHECK_VALUE(!examples.empty(), "[Stack] expected a non-empty batch of examples, got none");
    std::vector<Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& example : examples) {
      data.push_back(std::move(example.data));
      targets.push_back(std::move(example.target));
    }
    return {tg::stack(data), tg::stack(targets)};
  }
};

template <>
struct Stack<TensorExample> : public Collation<TensorExample> {
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    TG_CHECK_VALUE(!examples.empty(), "[Stack] expected a non-empty batch of examples, got none");
    std::vector<Tensor> data;
    data.reserve(examples.size());
    for (auto& example : examples) data.push_back(std::move(example.data));
    return tg::stack(data);
  }
};

}  // namespace tg::data::transforms

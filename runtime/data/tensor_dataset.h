// Datasets over tensors held in memory: TensorDataset (LibTorch's: example i is row i of one
// tensor) and TensorPairDataset (tensorgen's: example i is {data[i], target[i]}, the common
// (inputs, labels) case). Invariant: data and target have the same size in dimension 0.
#pragma once

#include <vector>

#include "core/error.h"
#include "data/dataset.h"
#include "tensorgen/ops.h"

namespace tg::data::datasets {

class TensorDataset : public Dataset<TensorDataset, TensorExample> {
 public:
  explicit TensorDataset(const std::vector<Tensor>& tensors) : TensorDataset(tg::stack(tensors)) {}
  explicit TensorDataset(Tensor tensor) : tensor(std::move(tensor)) {
    TG_CHECK_VALUE(this->tensor.defined() && this->tensor.dim() > 0,
                   "[TensorDataset] expected a tensor with a first dimension to index, got ",
                   this->tensor.defined() ? "a 0-dim tensor" : "an undefined tensor");
  }
  TensorExample get(size_t index) override { return tensor.select(0, static_cast<int64_t>(index)); }
  std::optional<size_t> size() const override { return static_cast<size_t>(tensor.size(0)); }

  Tensor tensor;
};

class TensorPairDataset : public Dataset<TensorPairDataset> {
 public:
  TensorPairDataset(Tensor data, Tensor target) : data_(std::move(data)), target_(std::move(target)) {
    TG_CHECK_VALUE(data_.defined() && target_.defined() && data_.dim() > 0 && target_.dim() > 0,
                   "[TensorPairDataset] expected data and target with a first dimension to index");
    TG_CHECK_VALUE(data_.size(0) == target_.size(0), "[TensorPairDataset] expected data and target of the same ",
                   "length in dimension 0, got ", data_.size(0), " and ", target_.size(0));
  }
  Example<> get(size_t index) override {
    const auto i = static_cast<int64_t>(index);
    return {data_.select(0, i), target_.select(0, i)};
  }
  std::optional<size_t> size() const override { return static_cast<size_t>(data_.size(0)); }
  const Tensor& data() const noexcept { return data_; }
  const Tensor& target() const noexcept { return target_; }

 private:
  Tensor data_, target_;
};

}  // namespace tg::data::datasets

// Example: one item of a dataset, a `data` tensor with a `target` (LibTorch's
// torch::data::Example); TensorExample has data only.
#pragma once

#include <utility>

#include "core/tensor.h"

namespace tg::data {

namespace example {
using NoTarget = void;
}  // namespace example

template <typename Data = Tensor, typename Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

template <typename Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;
  using TargetType = example::NoTarget;

  Example() = default;
  Example(Data data) : data(std::move(data)) {}  // NOLINT: LibTorch's implicit form
  operator Data&() { return data; }              // NOLINT
  operator const Data&() const { return data; }  // NOLINT

  Data data;
};

using TensorExample = Example<Tensor, example::NoTarget>;

}  // namespace tg::data

// The MNIST dataset from its four idx files under `root` (LibTorch's
// torch::data::datasets::MNIST): train-images-idx3-ubyte / train-labels-idx1-ubyte, or the
// t10k- pair in Mode::kTest. Invariants: images() is float32 [N, 1, rows, cols] in [0, 1]
// (bytes / 255), targets() int64 [N]; the two files agree on N.
#pragma once

#include <string>

#include "data/dataset.h"

namespace tg::data::datasets {

class MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };

  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  Example<> get(size_t index) override;
  std::optional<size_t> size() const override;
  bool is_train() const noexcept { return is_train_; }
  const Tensor& images() const noexcept { return images_; }
  const Tensor& targets() const noexcept { return targets_; }

 private:
  Tensor images_, targets_;
  bool is_train_;
};

}  // namespace tg::data::datasets

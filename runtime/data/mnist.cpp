#include "data/mnist.h"

#include "core/error.h"
#include "data/idx.h"
#include "tensorgen/ops.h"

namespace tg::data::datasets {

MNIST::MNIST(const std::string& root, Mode mode) : is_train_(mode == Mode::kTrain) {
  const std::string prefix = root + (root.empty() || root.back() == '/' ? "" : "/") + (is_train_ ? "train" : "t10k");
  const std::string images_path = prefix + "-images-idx3-ubyte", labels_path = prefix + "-labels-idx1-ubyte";
  Tensor images = read_idx(images_path);
  Tensor labels = read_idx(labels_path);
  TG_CHECK_VALUE(images.scalar_type() == kByte && images.dim() == 3, "[MNIST] ", images_path,
                 ": expected uint8 images of 3 dimensions [N, rows, cols], got ", images.scalar_type(), " of sizes ",
                 images.sizes());
  TG_CHECK_VALUE(labels.scalar_type() == kByte && labels.dim() == 1, "[MNIST] ", labels_path,
                 ": expected uint8 labels of 1 dimension [N], got ", labels.scalar_type(), " of sizes ",
                 labels.sizes());
  TG_CHECK_VALUE(images.size(0) == labels.size(0), "[MNIST] ", root, ": expected as many labels as images, got ",
                 labels.size(0), " labels in ", labels_path, " and ", images.size(0), " images in ", images_path);
  images_ = images.to(kFloat).div_(255).unsqueeze(1);
  targets_ = labels.to(kLong);
}

Example<> MNIST::get(size_t index) {
  TG_CHECK_INDEX(index < static_cast<size_t>(images_.size(0)), "[MNIST] expected an index below ", images_.size(0),
                 ", got ", index);
  const auto i = static_cast<int64_t>(index);
  return {images_.select(0, i), targets_.select(0, i)};
}

std::optional<size_t> MNIST::size() const { return static_cast<size_t>(images_.size(0)); }

}  // namespace tg::data::datasets

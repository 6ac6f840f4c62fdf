// Port program 3: a CNN classifier on images in MNIST's idx files, written as a LibTorch
// program: the program writes full-size MNIST files (60,000 training and 10,000 test images of
// 28x28, the sizes LibTorch's reader insists on) of three generated classes (a horizontal bar,
// a vertical bar, a diagonal, with a fixed pattern of noise), reads them back with
// torch::data::datasets::MNIST in both modes, trains Conv2d -> ReLU -> MaxPool2d -> Flatten ->
// Linear on the first batches of a sequential DataLoader over the training set, and measures
// accuracy on those and on the first test images.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "port.h"

namespace F = torch::nn::functional;

namespace {

constexpr int kTrainCount = 60000, kTestCount = 10000, kSide = 28;
// Training reads the first kBatches batches of each epoch (a sequential sampler: the same images
// every epoch); accuracy is measured on those and on the first kBatches test batches.
constexpr int kBatchSize = 20, kBatches = 3;

void write_big_endian(std::ofstream& out, uint32_t value) {
  const char bytes[4] = {static_cast<char>(value >> 24), static_cast<char>(value >> 16), static_cast<char>(value >> 8),
                         static_cast<char>(value)};
  out.write(bytes, 4);
}

// One idx pair (`prefix`-images-idx3-ubyte, `prefix`-labels-idx1-ubyte) of `count` images,
// image n of class n % 3; `state` carries the noise generator from one file to the next.
void write_split(const std::string& folder, const std::string& prefix, int count, uint32_t& state) {
  std::ofstream images(folder + "/" + prefix + "-images-idx3-ubyte", std::ios::binary);
  std::ofstream labels(folder + "/" + prefix + "-labels-idx1-ubyte", std::ios::binary);
  write_big_endian(images, 2051);
  write_big_endian(images, static_cast<uint32_t>(count));
  write_big_endian(images, kSide);
  write_big_endian(images, kSide);
  write_big_endian(labels, 2049);
  write_big_endian(labels, static_cast<uint32_t>(count));
  std::vector<char> pixels(static_cast<size_t>(kSide * kSide));
  for (int n = 0; n < count; ++n) {
    const int label = n % 3, offset = 6 + (n * 5) % 16;
    for (int r = 0; r < kSide; ++r) {
      for (int c = 0; c < kSide; ++c) {
        state = state * 1664525u + 1013904223u;
        const bool on = label == 0 ? (r >= offset && r < offset + 3) : label == 1 ? (c >= offset && c < offset + 3)
                                                                                  : (r - c >= -1 && r - c <= 1);
        const int noise = static_cast<int>((state >> 24) % 40);
        pixels[static_cast<size_t>(r * kSide + c)] = static_cast<char>(on ? 215 + noise : noise);
      }
    }
    images.write(pixels.data(), static_cast<std::streamsize>(pixels.size()));
    labels.put(static_cast<char>(label));
  }
}

// The four files of MNIST's layout in `folder`; returns the folder.
std::string write_dataset(const std::string& folder) {
  std::filesystem::create_directories(folder);
  uint32_t state = 7;
  write_split(folder, "train", kTrainCount, state);
  write_split(folder, "t10k", kTestCount, state);
  return folder;
}

struct CnnImpl : torch::nn::Module {
  CnnImpl()
      : conv(register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 4, 5).stride(2)))),
        pool(register_module("pool", torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2)))),
        flatten(register_module("flatten", torch::nn::Flatten())),
        fc(register_module("fc", torch::nn::Linear(4 * 6 * 6, 3))) {}

  torch::Tensor forward(const torch::Tensor& x) { return fc(flatten(pool(torch::relu(conv(x))))); }

  torch::nn::Conv2d conv;
  torch::nn::MaxPool2d pool;
  torch::nn::Flatten flatten;
  torch::nn::Linear fc;
};
TORCH_MODULE(Cnn);

// The fraction of the first kBatches batches of `loader` that `model` classifies right.
template <typename Loader>
double accuracy(Cnn& model, Loader& loader) {
  torch::NoGradGuard no_grad;
  int64_t correct = 0, total = 0, batches = 0;
  for (auto& batch : loader) {
    correct += model->forward(batch.data).argmax(1).eq(batch.target).sum().template item<int64_t>();
    total += batch.target.size(0);
    if (++batches == kBatches) break;
  }
  return static_cast<double>(correct) / static_cast<double>(total);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string folder = write_dataset(
      argc > 1 ? argv[1]
               : (std::filesystem::temp_directory_path() / ("port_cnn_idx_" + std::to_string(::getpid()))).string());
  auto train_set = torch::data::datasets::MNIST(folder).map(torch::data::transforms::Stack<>());
  auto test_set =
      torch::data::datasets::MNIST(folder, torch::data::datasets::MNIST::Mode::kTest).map(torch::data::transforms::Stack<>());
  port::report("train.size", static_cast<double>(train_set.size().value()));
  port::report("test.size", static_cast<double>(test_set.size().value()));
  auto train = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(train_set), torch::data::DataLoaderOptions().batch_size(kBatchSize));
  auto test = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(test_set), torch::data::DataLoaderOptions().batch_size(kBatchSize));

  Cnn model;
  port::deterministic_init(*model);
  for (int epoch = 0; epoch < 8; ++epoch) {
    double loss_sum = 0;
    int batches = 0;
    for (auto& batch : *train) {
      model->zero_grad();
      const auto loss = F::cross_entropy(model->forward(batch.data), batch.target);
      loss.backward();
      port::sgd_step(*model, 0.1);
      loss_sum += loss.item<double>();
      if (++batches == kBatches) break;
    }
    port::report("loss.epoch" + std::to_string(epoch), loss_sum / batches);
  }
  port::report("accuracy", accuracy(model, *train));
  port::report("test_accuracy", accuracy(model, *test));
  std::filesystem::remove_all(folder);
  return 0;
}

// Port program 3: a CNN classifier on images in MNIST's idx files, written as a LibTorch
// program: the program writes three classes of 28x28 images (a horizontal bar, a vertical bar,
// a diagonal, with a fixed pattern of noise) as train-images-idx3-ubyte / train-labels-idx1-ubyte,
// reads them back with torch::data::datasets::MNIST, and trains Conv2d -> ReLU -> MaxPool2d ->
// Flatten -> Linear on batches from a sequential DataLoader.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "port.h"

namespace F = torch::nn::functional;

namespace {

constexpr int kCount = 60, kSide = 28;

void write_big_endian(std::ofstream& out, uint32_t value) {
  const char bytes[4] = {static_cast<char>(value >> 24), static_cast<char>(value >> 16), static_cast<char>(value >> 8),
                         static_cast<char>(value)};
  out.write(bytes, 4);
}

// The idx files of kCount images, class n % 3; returns the folder.
std::string write_dataset(const std::string& folder) {
  std::filesystem::create_directories(folder);
  std::ofstream images(folder + "/train-images-idx3-ubyte", std::ios::binary);
  std::ofstream labels(folder + "/train-labels-idx1-ubyte", std::ios::binary);
  write_big_endian(images, 2051);
  write_big_endian(images, kCount);
  write_big_endian(images, kSide);
  write_big_endian(images, kSide);
  write_big_endian(labels, 2049);
  write_big_endian(labels, kCount);
  uint32_t state = 7;
  for (int n = 0; n < kCount; ++n) {
    const int label = n % 3, offset = 6 + (n * 5) % 16;
    for (int r = 0; r < kSide; ++r) {
      for (int c = 0; c < kSide; ++c) {
        state = state * 1664525u + 1013904223u;
        const bool on = label == 0 ? (r >= offset && r < offset + 3) : label == 1 ? (c >= offset && c < offset + 3)
                                                                                  : (r - c >= -1 && r - c <= 1);
        const int noise = static_cast<int>((state >> 24) % 40);
        images.put(static_cast<char>(on ? 215 + noise : noise));
      }
    }
    labels.put(static_cast<char>(label));
  }
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

}  // namespace

int main(int argc, char** argv) {
  const std::string folder = write_dataset(
      argc > 1 ? argv[1]
               : (std::filesystem::temp_directory_path() / ("port_cnn_idx_" + std::to_string(::getpid()))).string());
  auto dataset = torch::data::datasets::MNIST(folder).map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(dataset), torch::data::DataLoaderOptions().batch_size(20));

  Cnn model;
  port::deterministic_init(*model);
  for (int epoch = 0; epoch < 8; ++epoch) {
    double loss_sum = 0;
    int batches = 0;
    for (auto& batch : *loader) {
      model->zero_grad();
      const auto loss = F::cross_entropy(model->forward(batch.data), batch.target);
      loss.backward();
      port::sgd_step(*model, 0.1);
      loss_sum += loss.item<double>();
      ++batches;
    }
    port::report("loss.epoch" + std::to_string(epoch), loss_sum / batches);
  }
  torch::NoGradGuard no_grad;
  int64_t correct = 0, total = 0;
  for (auto& batch : *loader) {
    correct += model->forward(batch.data).argmax(1).eq(batch.target).sum().item<int64_t>();
    total += batch.target.size(0);
  }
  port::report("accuracy", static_cast<double>(correct) / static_cast<double>(total));
  std::filesystem::remove_all(folder);
  return 0;
}

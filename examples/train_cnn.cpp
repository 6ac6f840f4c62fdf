// train_cnn: trains a small ResNet-style convolutional network to tell the orientation of
// striped images apart, a dataset the program draws itself (no download), and reports as it
// goes: loss, accuracy on the training and held-out images, and images per second.
//
//   train_cnn [--device cpu|cuda] [--epochs N] [--batch-size N] [--seed N]
//
// Each image is 1 x 16 x 16: a sine grating at one of four orientations (horizontal,
// vertical, and the two diagonals, the four classes) with a random period, phase and
// contrast, under Gaussian noise. The network is a stem (3x3 convolution, BatchNorm2d, ReLU),
// a residual block, 2x2 max pooling, a residual block that halves the resolution and doubles
// the channels (a 1x1 convolution on its shortcut), global average pooling and a Linear
// layer; trained with cross-entropy and tg::optim::SGD with momentum, written as a LibTorch
// program is.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "command_line.h"

namespace {

namespace nn = tg::nn;

const examples::CommandLine command_line("train_cnn", "[--device cpu|cuda] [--epochs N] [--batch-size N] [--seed N]");

constexpr int64_t kSide = 16;
constexpr int64_t kClasses = 4;

using Options = examples::TrainingOptions;

Options parse(int argc, char** argv) {
  return examples::parse_training_options(command_line, argc, argv, {.epochs = 4, .batch_size = 32});
}

struct Dataset {
  tg::Tensor images;  // [n, 1, 16, 16] float32
  tg::Tensor labels;  // [n] int64
};

// `count` images, their classes in turn: class c's stripes run along direction c * 45 degrees.
Dataset gratings(int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> period(3.0f, 6.0f), phase(0.0f, 2.0f * static_cast<float>(M_PI)),
      contrast(0.5f, 1.5f);
  std::normal_distribution<float> noise(0.0f, 0.6f);
  std::vector<float> pixels;
  std::vector<int64_t> labels;
  pixels.reserve(static_cast<size_t>(count * kSide * kSide));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t label = i % kClasses;
    // The grating varies along the normal of the stripes: (0, 1), (1, 0), (1, 1), (1, -1).
    const float normal_x[] = {0.0f, 1.0f, 0.7071f, 0.7071f}, normal_y[] = {1.0f, 0.0f, 0.7071f, -0.7071f};
    const float frequency = 2.0f * static_cast<float>(M_PI) / period(rng), offset = phase(rng), scale = contrast(rng);
    for (int64_t y = 0; y < kSide; ++y) {
      for (int64_t x = 0; x < kSide; ++x) {
        const float along = normal_x[label] * static_cast<float>(x) + normal_y[label] * static_cast<float>(y);
        pixels.push_back(scale * std::sin(frequency * along + offset) + noise(rng));
      }
    }
    labels.push_back(label);
  }
  return {tg::tensor(pixels).view({count, 1, kSide, kSide}), tg::tensor(labels)};
}

// conv3x3 -> BatchNorm -> ReLU -> conv3x3 -> BatchNorm, plus the input (through a 1x1
// convolution and BatchNorm when the shape changes), then ReLU.
struct ResidualBlockImpl : nn::Module {
  ResidualBlockImpl(int64_t in, int64_t out, int64_t stride)
      : conv1(register_module("conv1", nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)))),
        bn1(register_module("bn1", nn::BatchNorm2d(out))),
        conv2(register_module("conv2", nn::Conv2d(nn::Conv2dOptions(out, out, 3).padding(1).bias(false)))),
        bn2(register_module("bn2", nn::BatchNorm2d(out))) {
    if (in != out || stride != 1) {
      shortcut_conv = register_module("shortcut_conv",
                                      nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)));
      shortcut_bn = register_module("shortcut_bn", nn::BatchNorm2d(out));
    }
  }

  tg::Tensor forward(const tg::Tensor& x) {
    tg::Tensor out = tg::relu(bn1(conv1(x)));
    out = bn2(conv2(out));
    const tg::Tensor identity = shortcut_conv ? shortcut_bn(shortcut_conv(x)) : x;
    return tg::relu(out + identity);
  }

  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::Conv2d conv2;
  nn::BatchNorm2d bn2;
  nn::Conv2d shortcut_conv{nullptr};
  nn::BatchNorm2d shortcut_bn{nullptr};
};
TG_MODULE(ResidualBlock);

struct ResNetImpl : nn::Module {
  explicit ResNetImpl(int64_t width)
      : stem(register_module("stem", nn::Conv2d(nn::Conv2dOptions(1, width, 3).padding(1).bias(false)))),
        stem_bn(register_module("stem_bn", nn::BatchNorm2d(width))),
        block1(register_module("block1", ResidualBlock(width, width, 1))),
        pool(register_module("pool", nn::MaxPool2d(nn::MaxPool2dOptions(2)))),
        block2(register_module("block2", ResidualBlock(width, 2 * width, 2))),
        fc(register_module("fc", nn::Linear(2 * width, kClasses))) {}

  tg::Tensor forward(tg::Tensor x) {
    x = tg::relu(stem_bn(stem(x)));   // [N, w, 16, 16]
    x = pool(block1(x));              // [N, w, 8, 8]
    x = block2(x);                    // [N, 2w, 4, 4]
    return fc(x.mean({2, 3}));        // global average pooling, then [N, classes]
  }

  nn::Conv2d stem;
  nn::BatchNorm2d stem_bn;
  ResidualBlock block1;
  nn::MaxPool2d pool;
  ResidualBlock block2;
  nn::Linear fc;
};
TG_MODULE(ResNet);

// Evaluation mode: BatchNorm normalises by its running statistics.
double accuracy(ResNet& model, const Dataset& data) {
  tg::NoGradGuard no_grad;
  model->eval();
  const tg::Tensor predicted = model(data.images).argmax(1);
  model->train();
  return static_cast<double>(predicted.eq(data.labels).sum().item<int64_t>()) * 100.0 /
         static_cast<double>(data.labels.size(0));
}

}  // namespace

int run(const Options& options) {
  tg::manual_seed(options.seed);
  Dataset train = gratings(1024, options.seed), test = gratings(512, options.seed + 1000);
  train = {train.images.to(options.device), train.labels.to(options.device)};
  test = {test.images.to(options.device), test.labels.to(options.device)};
  const int64_t n = train.labels.size(0);
  std::printf("train_cnn: %lld training and %lld held-out %lldx%lld images, %lld classes, on %s\n",
              static_cast<long long>(n), static_cast<long long>(test.labels.size(0)), static_cast<long long>(kSide),
              static_cast<long long>(kSide), static_cast<long long>(kClasses),
              options.device.is_cuda() ? "cuda" : "cpu");

  ResNet model(8);
  // He initialisation (fan-out) of every convolution, as torchvision's ResNets.
  for (const auto& module : model->modules()) {
    if (auto* conv = module->as<nn::Conv2d>()) nn::init::kaiming_normal_(conv->weight, 0, tg::kFanOut, tg::kReLU);
  }
  model->to(options.device);
  tg::optim::SGD optimizer(model->parameters(), tg::optim::SGDOptions(0.05).momentum(0.9).weight_decay(1e-4));
  auto loader = tg::data::make_data_loader(
      tg::data::datasets::TensorPairDataset(train.images, train.labels).map(tg::data::transforms::Stack<>()),
      tg::data::DataLoaderOptions().batch_size(static_cast<size_t>(options.batch_size)).shuffle(true));
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    double loss_sum = 0;
    int64_t batches = 0;
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      const tg::Tensor loss = nn::functional::cross_entropy(model(batch.data), batch.target);
      loss.backward();
      optimizer.step();
      loss_sum += loss.item<double>();
      ++batches;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("epoch %3d/%d  loss %.4f  train acc %5.1f%%  test acc %5.1f%%  %9.0f samples/s\n", epoch,
                options.epochs, loss_sum / static_cast<double>(batches), accuracy(model, train),
                accuracy(model, test), static_cast<double>(n) / seconds);
    std::fflush(stdout);
  }
  std::printf("final test accuracy: %.1f%%\n", accuracy(model, test));
  return 0;
}

int main(int argc, char** argv) { return command_line.run([&] { return run(parse(argc, argv)); }); }

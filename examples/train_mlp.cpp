// train_mlp: trains a multilayer perceptron to tell apart the arms of a noisy spiral, a
// dataset the program draws itself (no download), and reports as it goes: loss, accuracy
// on the training and held-out points, and samples per second.
//
//   train_mlp [--device cpu|cuda] [--epochs N] [--batch-size N] [--seed N]
//
// The model is 2 -> 128 -> 128 -> 3 with ReLU (a tg::nn::Module of three Linear layers),
// trained with cross-entropy and tg::optim::SGD with momentum on batches from a
// tg::data DataLoader, written as a LibTorch program is.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "command_line.h"

namespace {

const examples::CommandLine command_line("train_mlp", "[--device cpu|cuda] [--epochs N] [--batch-size N] [--seed N]");

using Options = examples::TrainingOptions;

Options parse(int argc, char** argv) {
  return examples::parse_training_options(command_line, argc, argv, {.epochs = 30, .batch_size = 64});
}

// `per_class` points on each of `classes` spiral arms, with Gaussian noise.
struct Dataset {
  tg::Tensor points;  // [n, 2] float32
  tg::Tensor labels;  // [n] int64
};

Dataset spirals(int64_t per_class, int64_t classes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> noise(0.0f, 0.2f);
  std::vector<float> xy;
  std::vector<int64_t> labels;
  for (int64_t c = 0; c < classes; ++c) {
    for (int64_t i = 0; i < per_class; ++i) {
      const float r = static_cast<float>(i) / static_cast<float>(per_class);
      const float angle = 4.0f * r + 2.0f * static_cast<float>(M_PI) * static_cast<float>(c) / static_cast<float>(classes);
      xy.push_back(r * std::sin(angle) * 2.0f + noise(rng) * r);
      xy.push_back(r * std::cos(angle) * 2.0f + noise(rng) * r);
      labels.push_back(c);
    }
  }
  return {tg::tensor(xy).view({-1, 2}), tg::tensor(labels)};
}

// A random split into training and held-out points.
std::pair<Dataset, Dataset> split(const Dataset& all, double held_out, uint64_t seed) {
  std::vector<int64_t> order(static_cast<size_t>(all.labels.size(0)));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed + 1));
  const auto n_test = static_cast<int64_t>(held_out * static_cast<double>(order.size()));
  tg::Tensor test = tg::tensor(std::vector<int64_t>(order.begin(), order.begin() + n_test));
  tg::Tensor train = tg::tensor(std::vector<int64_t>(order.begin() + n_test, order.end()));
  auto take = [&](const tg::Tensor& index) {
    return Dataset{all.points.index_select(0, index), all.labels.index_select(0, index)};
  };
  return {take(train), take(test)};
}

// The classifier, written as a LibTorch program writes one: a module with registered layers.
struct MlpImpl : tg::nn::Module {
  MlpImpl(int64_t in, int64_t hidden, int64_t classes)
      : fc1(register_module("fc1", tg::nn::Linear(in, hidden))),
        fc2(register_module("fc2", tg::nn::Linear(hidden, hidden))),
        fc3(register_module("fc3", tg::nn::Linear(hidden, classes))) {
    // He initialisation for ReLU layers, zero biases.
    for (tg::nn::Linear* layer : {&fc1, &fc2, &fc3}) {
      tg::nn::init::kaiming_normal_((*layer)->weight, 0, tg::kFanIn, tg::kReLU);
      tg::nn::init::zeros_((*layer)->bias);
    }
  }

  tg::Tensor forward(tg::Tensor x) {
    x = tg::relu(fc1(x));
    x = tg::relu(fc2(x));
    return fc3(x);
  }

  tg::nn::Linear fc1, fc2, fc3;
};
TG_MODULE(Mlp);

double accuracy(Mlp& model, const Dataset& data) {
  tg::NoGradGuard no_grad;
  model->eval();
  const tg::Tensor predicted = model(data.points).argmax(1);
  model->train();
  return predicted.eq(data.labels).sum().item<int64_t>() * 100.0 / static_cast<double>(data.labels.size(0));
}

}  // namespace

int run(const Options& options) {
  tg::manual_seed(options.seed);
  auto [train, test] = split(spirals(2000, 3, options.seed), 0.2, options.seed);
  train = {train.points.to(options.device), train.labels.to(options.device)};
  test = {test.points.to(options.device), test.labels.to(options.device)};
  const int64_t n = train.labels.size(0);
  std::printf("train_mlp: %lld training and %lld held-out points, 3 classes, on %s\n", static_cast<long long>(n),
              static_cast<long long>(test.labels.size(0)), options.device.is_cuda() ? "cuda" : "cpu");

  Mlp model(2, 128, 3);
  model->to(options.device);
  // SGD with momentum (v = 0.9 v + grad; p -= 0.05 v) over shuffled batches of the training points.
  tg::optim::SGD optimizer(model->parameters(), tg::optim::SGDOptions(0.05).momentum(0.9));
  auto loader = tg::data::make_data_loader(
      tg::data::datasets::TensorPairDataset(train.points, train.labels).map(tg::data::transforms::Stack<>()),
      tg::data::DataLoaderOptions().batch_size(static_cast<size_t>(options.batch_size)).shuffle(true));
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    double loss_sum = 0;
    int64_t batches = 0;
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      const tg::Tensor loss = tg::nn::functional::cross_entropy(model(batch.data), batch.target);
      loss.backward();
      optimizer.step();
      loss_sum += loss.item<double>();
      ++batches;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("epoch %3d/%d  loss %.4f  train acc %5.1f%%  test acc %5.1f%%  %9.0f samples/s\n", epoch,
                options.epochs, loss_sum / static_cast<double>(batches), accuracy(model, train), accuracy(model, test),
                static_cast<double>(n) / seconds);
    std::fflush(stdout);
  }
  std::printf("final test accuracy: %.1f%%\n", accuracy(model, test));
  return 0;
}

int main(int argc, char** argv) { return command_line.run([&] { return run(parse(argc, argv)); }); }

// train_transformer: trains a small GPT-style language model on the characters of a text the
// project ships (the opening of Shakespeare's Coriolanus, examples/data/), reports the loss on
// the training text and on a held-out tenth of it as it goes, then writes new text with the
// model, one sampled character at a time.
//
//   train_transformer [--device cpu|cuda] [--steps N] [--batch-size N] [--seed N] [--text PATH]
//                     [--context N] [--generate N] [--temperature T] [--prompt TEXT]
//                     [--layers N] [--width N] [--heads N] [--lr LR] [--threads N]
//
// The model is decoder-only: token and learned position embeddings, pre-LayerNorm blocks of
// causal multi-head self-attention and a GELU MLP, a final layer norm and a linear head,
// trained with cross-entropy and tg::optim::AdamW (on the fused `_fused_adamw_` operator). It is written as
// a LibTorch program is: tg::nn modules (Embedding, LayerNorm, Linear, ModuleList) in a
// module of blocks.
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "command_line.h"

namespace {

const examples::CommandLine command_line(
    "train_transformer",
    "[--device cpu|cuda] [--steps N] [--batch-size N] [--seed N] [--text PATH] [--context N] [--generate N] "
    "[--temperature T] [--prompt TEXT] [--layers N] [--width N] [--heads N] [--lr LR] [--threads N]");

struct Options {
  tg::Device device{tg::kCPU};
  int64_t steps = 600;
  int64_t batch_size = 16;
  uint64_t seed = 0;
  std::string text_path = TRAIN_TRANSFORMER_TEXT;  // set by examples/meson.build
  int64_t context = 64;
  int64_t layers = 2, width = 64, heads = 4;
  double lr = 1e-2;  // the peak of the schedule
  int64_t generate = 300;
  double temperature = 0.8;
  std::optional<std::string> prompt;  // the text's first line when not given
  // Threads of the CPU kernels. One by default: this model's tensors are small, and where the
  // cores are busy with other work, a kernel split across threads waits for the one the
  // scheduler put aside (docs/examples.md, "Threads").
  int64_t threads = 1;
};

Options parse(int argc, char** argv) {
  Options options;
  for (const auto& [flag, value] : command_line.flags(argc, argv)) {
    if (flag == "--device") {
      options.device = command_line.device(flag, value);
    } else if (flag == "--steps") {
      options.steps = command_line.positive_integer(flag, value);
    } else if (flag == "--batch-size") {
      options.batch_size = command_line.positive_integer(flag, value);
    } else if (flag == "--seed") {
      options.seed = command_line.seed(flag, value);
    } else if (flag == "--text") {
      options.text_path = value;
    } else if (flag == "--context") {
      options.context = command_line.positive_integer(flag, value);
    } else if (flag == "--layers") {
      options.layers = command_line.positive_integer(flag, value);
    } else if (flag == "--width") {
      options.width = command_line.positive_integer(flag, value);
    } else if (flag == "--heads") {
      options.heads = command_line.positive_integer(flag, value);
    } else if (flag == "--lr") {
      options.lr = command_line.positive_number(flag, value);
    } else if (flag == "--generate") {
      options.generate = command_line.non_negative_integer(flag, value);
    } else if (flag == "--temperature") {
      options.temperature = command_line.positive_number(flag, value);
    } else if (flag == "--prompt") {
      options.prompt = value;
    } else if (flag == "--threads") {
      options.threads = command_line.positive_integer(flag, value);
    } else {
      command_line.unknown(flag);
    }
  }
  if (options.width % options.heads != 0) {
    command_line.fail("--width " + std::to_string(options.width) + " is not a multiple of --heads " +
                      std::to_string(options.heads));
  }
  return options;
}

std::string read_text(const std::string& path) {
  if (std::filesystem::is_directory(path)) command_line.fail("cannot read the text '" + path + "': it is a directory");
  std::ifstream file(path, std::ios::binary);
  if (!file) command_line.fail("cannot read the text '" + path + "': " + std::strerror(errno));
  std::ostringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

// The characters (bytes) of the text, each with a token id: its rank in byte order.
class Vocabulary {
 public:
  explicit Vocabulary(const std::string& text) {
    for (const unsigned char c : text) id_[c] = 0;
    for (int c = 0; c < 256; ++c) {
      if (id_[c] >= 0) {
        id_[c] = static_cast<int64_t>(characters_.size());
        characters_.push_back(static_cast<char>(c));
      }
    }
  }
  int64_t size() const { return static_cast<int64_t>(characters_.size()); }
  bool contains(char c) const { return id_[static_cast<unsigned char>(c)] >= 0; }
  int64_t id(char c) const { return id_[static_cast<unsigned char>(c)]; }
  char character(int64_t id) const { return characters_[static_cast<size_t>(id)]; }

  std::vector<int64_t> encode(const std::string& text) const {
    std::vector<int64_t> ids;
    ids.reserve(text.size());
    for (const char c : text) ids.push_back(id(c));
    return ids;
  }

 private:
  std::vector<int64_t> id_ = std::vector<int64_t>(256, -1);  // -1: not in the text
  std::string characters_;
};

namespace nn = tg::nn;

// A Linear layer initialised as GPT-2 does: weights from N(0, std^2), zero biases.
nn::Linear gpt_linear(int64_t in, int64_t out, double std = 0.02) {
  nn::Linear linear(in, out);
  nn::init::normal_(linear->weight, 0, std);
  nn::init::zeros_(linear->bias);
  return linear;
}

struct Config {
  int64_t vocabulary, context, layers, width, heads;
};

// x + attention(norm(x)), then x + mlp(norm(x)): a pre-LayerNorm transformer block.
struct BlockImpl : nn::Module {
  // The projections that add to the residual stream start smaller, by 1 / sqrt(2 layers), so
  // that the stream's variance does not grow with depth (GPT-2).
  explicit BlockImpl(const Config& config)
      : heads(config.heads),
        attention_norm(register_module("attention_norm", nn::LayerNorm(nn::LayerNormOptions({config.width})))),
        qkv(register_module("qkv", gpt_linear(config.width, 3 * config.width))),
        attention_out(register_module("attention_out", gpt_linear(config.width, config.width,
                                                                  0.02 / std::sqrt(2.0 * config.layers)))),
        mlp_norm(register_module("mlp_norm", nn::LayerNorm(nn::LayerNormOptions({config.width})))),
        mlp_in(register_module("mlp_in", gpt_linear(config.width, 4 * config.width))),
        mlp_out(register_module("mlp_out", gpt_linear(4 * config.width, config.width,
                                                      0.02 / std::sqrt(2.0 * config.layers)))) {}

  tg::Tensor forward(tg::Tensor x) {
    x = x + attention(attention_norm(x));
    return x + mlp_out(nn::functional::gelu(mlp_in(mlp_norm(x))));
  }

  // Causal multi-head self-attention: [batch, time, width] -> [batch, time, width].
  tg::Tensor attention(const tg::Tensor& x) {
    const int64_t batch = x.size(0), time = x.size(1), width = x.size(2);
    // [batch, time, 3 * width] -> [3, batch, heads, time, head width]
    const tg::Tensor q_k_v = qkv(x).view({batch, time, 3, heads, width / heads}).permute({2, 0, 3, 1, 4});
    const tg::Tensor y = tg::scaled_dot_product_attention(q_k_v.select(0, 0), q_k_v.select(0, 1), q_k_v.select(0, 2),
                                                          /*attn_mask=*/{}, /*dropout_p=*/0.0, /*is_causal=*/true);
    return attention_out(y.transpose(1, 2).reshape({batch, time, width}));
  }

  int64_t heads;
  nn::LayerNorm attention_norm;
  nn::Linear qkv, attention_out;
  nn::LayerNorm mlp_norm;
  nn::Linear mlp_in, mlp_out;
};
TG_MODULE(Block);

struct GptImpl : nn::Module {
  explicit GptImpl(const Config& config_)
      : config(config_),
        token_embedding(register_module("token_embedding", nn::Embedding(config.vocabulary, config.width))),
        position_embedding(register_module("position_embedding", nn::Embedding(config.context, config.width))),
        blocks(register_module("blocks", nn::ModuleList())),
        final_norm(register_module("final_norm", nn::LayerNorm(nn::LayerNormOptions({config.width})))),
        head(register_module("head", gpt_linear(config.width, config.vocabulary))) {
    nn::init::normal_(token_embedding->weight, 0, 0.02);
    nn::init::normal_(position_embedding->weight, 0, 0.02);
    for (int64_t l = 0; l < config.layers; ++l) blocks->push_back(Block(config));
  }

  // Token ids [batch, time] (time <= context) -> logits of the next token [batch, time, vocabulary].
  tg::Tensor forward(const tg::Tensor& tokens) {
    const tg::Tensor positions = tg::arange(tokens.size(1), tg::TensorOptions().dtype(tg::kLong).device(tokens.device()));
    tg::Tensor x = token_embedding(tokens) + position_embedding(positions);
    for (const auto& block : *blocks) x = block->as<Block>()->forward(x);
    return head(final_norm(x));
  }

  int64_t parameter_count() const {
    int64_t n = 0;
    for (const tg::Tensor& p : parameters()) n += p.numel();
    return n;
  }
  tg::Device device() const { return token_embedding->weight.device(); }

  Config config;
  nn::Embedding token_embedding, position_embedding;  // [vocabulary, width], [context, width]
  nn::ModuleList blocks;
  nn::LayerNorm final_norm;
  nn::Linear head;
};
TG_MODULE(Gpt);

// Sets every parameter group's learning rate, as a LibTorch program does for a schedule of its own.
void set_learning_rate(tg::optim::AdamW& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) static_cast<tg::optim::AdamWOptions&>(group.options()).lr(lr);
}

// Linear warm-up over the first 10% of the steps, then cosine decay to a tenth of the peak.
double learning_rate(int64_t step, int64_t steps, double peak) {
  const double warmup = std::max(1.0, 0.1 * static_cast<double>(steps));
  if (static_cast<double>(step) < warmup) return peak * static_cast<double>(step + 1) / warmup;
  const double progress = (static_cast<double>(step) - warmup) / std::max(1.0, static_cast<double>(steps) - warmup);
  return peak * (0.1 + 0.45 * (1 + std::cos(M_PI * progress)));
}

// Windows of the token ids: inputs [count, time] and the next tokens as targets [count, time].
struct Batch {
  tg::Tensor inputs, targets;
};

Batch windows(const std::vector<int64_t>& ids, const std::vector<size_t>& starts, int64_t time, tg::Device device) {
  std::vector<int64_t> inputs, targets;
  for (const size_t start : starts) {
    inputs.insert(inputs.end(), ids.begin() + start, ids.begin() + start + time);
    targets.insert(targets.end(), ids.begin() + start + 1, ids.begin() + start + time + 1);
  }
  const auto count = static_cast<int64_t>(starts.size());
  return {tg::tensor(inputs).view({count, time}).to(device), tg::tensor(targets).view({count, time}).to(device)};
}

tg::Tensor loss(Gpt& model, const Batch& batch) {
  const tg::Tensor logits = model(batch.inputs);
  return nn::functional::cross_entropy(logits.view({-1, logits.size(-1)}), batch.targets.view({-1}));
}

// The mean loss over every non-overlapping window of the held-out text.
double validation_loss(Gpt& model, const std::vector<int64_t>& ids, int64_t batch_size) {
  tg::NoGradGuard no_grad;
  const auto time = static_cast<size_t>(model->config.context);
  std::vector<size_t> starts;
  for (size_t start = 0; start + time < ids.size(); start += time) starts.push_back(start);
  double sum = 0;
  for (size_t first = 0; first < starts.size(); first += static_cast<size_t>(batch_size)) {
    const size_t last = std::min(starts.size(), first + static_cast<size_t>(batch_size));
    const std::vector<size_t> some(starts.begin() + static_cast<std::ptrdiff_t>(first),
                                   starts.begin() + static_cast<std::ptrdiff_t>(last));
    const Batch batch = windows(ids, some, static_cast<int64_t>(time), model->device());
    sum += loss(model, batch).item<double>() * static_cast<double>(some.size());
  }
  return sum / static_cast<double>(starts.size());
}

// An index drawn with the given probabilities (a 1-d float tensor on the CPU).
int64_t sample(const tg::Tensor& probabilities, std::mt19937_64& rng) {
  const float* p = probabilities.data_ptr<float>();
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  double cumulative = 0;
  for (int64_t i = 0; i < probabilities.numel(); ++i) {
    cumulative += p[i];
    if (u < cumulative) return i;
  }
  return probabilities.numel() - 1;  // u beyond a sum that rounding left below 1
}

// `count` characters that follow `prompt`, each drawn from the model's distribution over the
// next character (its logits divided by `temperature`) given the last `context` characters.
std::string generate(Gpt& model, const Vocabulary& vocabulary, const std::string& prompt, int64_t count,
                     double temperature, uint64_t seed) {
  tg::NoGradGuard no_grad;
  std::mt19937_64 rng(seed);
  std::vector<int64_t> ids = vocabulary.encode(prompt);
  const auto context = static_cast<size_t>(model->config.context);
  std::string text;
  for (int64_t i = 0; i < count; ++i) {
    const std::vector<int64_t> window(ids.end() - static_cast<std::ptrdiff_t>(std::min(ids.size(), context)),
                                      ids.end());
    // The logits after the last character of the window: [1, time, vocabulary] -> [vocabulary].
    const tg::Tensor logits =
        model(tg::tensor(window).view({1, -1}).to(model->device())).select(0, 0).select(0, -1);
    const tg::Tensor probabilities = tg::softmax(logits / temperature, 0).to(tg::kCPU).contiguous();
    ids.push_back(sample(probabilities, rng));
    text += vocabulary.character(ids.back());
  }
  return text;
}

// The text as token ids: its first 90% to train on, the last 10% held out.
struct Corpus {
  Vocabulary vocabulary;
  std::vector<int64_t> train, validation;
};

Corpus split(const std::string& text, const Options& options) {
  Corpus corpus{Vocabulary(text), {}, {}};
  const std::vector<int64_t> ids = corpus.vocabulary.encode(text);
  const size_t held_out = ids.size() / 10;
  if (held_out < static_cast<size_t>(options.context) + 1) {  // a window of context + 1 in each part
    command_line.fail("the text '" + options.text_path + "' has " + std::to_string(text.size()) +
                      " characters; --context " + std::to_string(options.context) + " needs at least " +
                      std::to_string(10 * (options.context + 1)) + " (a tenth is held out)");
  }
  const auto boundary = ids.end() - static_cast<std::ptrdiff_t>(held_out);
  corpus.train.assign(ids.begin(), boundary);
  corpus.validation.assign(boundary, ids.end());
  return corpus;
}

struct Losses {
  double train, validation;
};

// Trains on random windows of the training part; every tenth of the run prints the mean
// training loss since the last report, the validation loss and the training speed.
Losses train(Gpt& model, tg::optim::AdamW& optimizer, const Corpus& corpus, const Options& options) {
  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<size_t> window_start(0, corpus.train.size() - static_cast<size_t>(options.context) - 1);
  const int64_t report_every = std::max<int64_t>(1, options.steps / 10);
  Losses last{};
  double loss_sum = 0, seconds = 0;
  int64_t losses = 0;
  for (int64_t step = 0; step < options.steps; ++step) {
    const auto step_start = std::chrono::steady_clock::now();
    std::vector<size_t> starts(static_cast<size_t>(options.batch_size));
    for (size_t& s : starts) s = window_start(rng);
    optimizer.zero_grad();
    const tg::Tensor batch_loss = loss(model, windows(corpus.train, starts, options.context, options.device));
    batch_loss.backward();
    set_learning_rate(optimizer, learning_rate(step, options.steps, options.lr));
    optimizer.step();
    loss_sum += batch_loss.item<double>();
    ++losses;
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - step_start).count();
    if ((step + 1) % report_every == 0 || step + 1 == options.steps) {
      last = {loss_sum / static_cast<double>(losses), validation_loss(model, corpus.validation, options.batch_size)};
      std::printf("step %5lld/%lld  train loss %.4f  validation loss %.4f  %8.0f tokens/s\n",
                  static_cast<long long>(step + 1), static_cast<long long>(options.steps), last.train, last.validation,
                  static_cast<double>(losses * options.batch_size * options.context) / seconds);
      std::fflush(stdout);
      loss_sum = 0;
      losses = 0;
      seconds = 0;
    }
  }
  return last;
}

int run(const Options& options) {
  const std::string text = read_text(options.text_path);
  const Corpus corpus = split(text, options);
  const std::string prompt = options.prompt.value_or(text.substr(0, text.find('\n') + 1));
  if (prompt.empty()) command_line.fail("--prompt must not be empty");
  for (const char c : prompt) {
    if (!corpus.vocabulary.contains(c)) {
      command_line.fail(std::string("--prompt has '") + c + "', which the text has not");
    }
  }

  tg::set_num_threads(static_cast<int>(options.threads));
  tg::manual_seed(options.seed);
  Gpt model(Config{.vocabulary = corpus.vocabulary.size(),
                   .context = options.context,
                   .layers = options.layers,
                   .width = options.width,
                   .heads = options.heads});
  model->to(options.device);
  tg::optim::AdamW optimizer(model->parameters(),
                             tg::optim::AdamWOptions(options.lr).betas(std::make_tuple(0.9, 0.99)).weight_decay(0.01));
  std::printf("train_transformer: %s, %zu characters (%lld distinct): %zu to train on, %zu held out\n",
              options.text_path.c_str(), text.size(), static_cast<long long>(corpus.vocabulary.size()),
              corpus.train.size(), corpus.validation.size());
  std::printf("model: %lld layers of width %lld, %lld heads, context %lld: %lld parameters, on %s (%d CPU thread%s)\n",
              static_cast<long long>(options.layers), static_cast<long long>(options.width),
              static_cast<long long>(options.heads), static_cast<long long>(options.context),
              static_cast<long long>(model->parameter_count()), options.device.is_cuda() ? "cuda" : "cpu",
              tg::get_num_threads(), tg::get_num_threads() == 1 ? "" : "s");
  std::printf("step %5d/%lld  validation loss %.4f  (uniform over the characters: %.4f)\n", 0,
              static_cast<long long>(options.steps), validation_loss(model, corpus.validation, options.batch_size),
              std::log(static_cast<double>(corpus.vocabulary.size())));
  std::fflush(stdout);

  const auto start = std::chrono::steady_clock::now();
  const Losses final_losses = train(model, optimizer, corpus, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("final: train loss %.4f, validation loss %.4f after %lld steps in %.1f s\n", final_losses.train,
              final_losses.validation, static_cast<long long>(options.steps), seconds);
  std::printf("generated (%lld characters, temperature %g, seed %llu):\n", static_cast<long long>(options.generate),
              options.temperature, static_cast<unsigned long long>(options.seed));
  const std::string generated =
      generate(model, corpus.vocabulary, prompt, options.generate, options.temperature, options.seed);
  std::printf("%s%s\n", prompt.c_str(), generated.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return command_line.run([&] { return run(parse(argc, argv)); });
}

// The command line of the examples: options that each take one value (`--steps 300`), read
// into (flag, value) pairs, and the readers of the values. A mistake prints
// "<program>: <problem>" and the usage line to stderr and exits with status 2; --help prints
// the usage line to stdout and exits with status 0.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tensorgen/tensorgen.h>

namespace examples {

class CommandLine {
 public:
  // `options`: the usage line after the program's name, "[--device cpu|cuda] [--steps N]".
  CommandLine(const char* program, const char* options) : program_(program), options_(options) {}

  [[noreturn]] void fail(const std::string& problem) const {
    std::fprintf(stderr, "%s: %s\nusage: %s %s\n", program_, problem.c_str(), program_, options_);
    std::exit(2);
  }

  // The options of argv as (flag, value) pairs, in order.
  std::vector<std::pair<std::string_view, const char*>> flags(int argc, char** argv) const {
    std::vector<std::pair<std::string_view, const char*>> pairs;
    for (int i = 1; i < argc; ++i) {
      const std::string_view flag = argv[i];
      if (flag == "--help" || flag == "-h") {
        std::printf("usage: %s %s\n", program_, options_);
        std::exit(0);
      }
      if (!flag.starts_with("--")) fail("expected an option (--name value), got '" + std::string(flag) + "'");
      if (i + 1 >= argc) fail("missing a value after " + std::string(flag));
      pairs.emplace_back(flag, argv[++i]);
    }
    return pairs;
  }

  // Runs the program's body: a tensorgen error it raises (a CUDA device where there is none,
  // say) is printed as "<program>: <message>" and the exit status is 1.
  template <typename Body>
  int run(Body&& body) const {
    try {
      return body();
    } catch (const tg::Error& e) {
      std::fprintf(stderr, "%s: %s\n", program_, e.message().c_str());
      return 1;
    }
  }

  [[noreturn]] void unknown(std::string_view flag) const { fail("unknown option " + std::string(flag)); }

  int64_t positive_integer(std::string_view flag, const char* text) const {
    const std::optional<int64_t> value = integer(text);
    if (!value || *value < 1) fail(std::string(flag) + " expects a positive integer, got '" + text + "'");
    return *value;
  }
  int64_t non_negative_integer(std::string_view flag, const char* text) const {
    const std::optional<int64_t> value = integer(text);
    if (!value || *value < 0) fail(std::string(flag) + " expects a non-negative integer, got '" + text + "'");
    return *value;
  }
  uint64_t seed(std::string_view flag, const char* text) const {
    return static_cast<uint64_t>(non_negative_integer(flag, text));
  }

  double positive_number(std::string_view flag, const char* text) const {
    char* end = nullptr;
    const double value = std::strtod(text, &end);
    if (end == text || *end != '\0' || !std::isfinite(value) || value <= 0) {
      fail(std::string(flag) + " expects a positive number, got '" + text + "'");
    }
    return value;
  }

  // cpu or cuda. Not a check that the device works: the first tensor made on it raises the
  // runtime's "CUDA is not available: ..." when the build or the machine has no GPU.
  tg::Device device(std::string_view flag, std::string_view text) const {
    if (text == "cpu") return tg::Device(tg::kCPU);
    if (text == "cuda") return tg::Device(tg::kCUDA, 0);
    fail(std::string(flag) + " expects cpu or cuda, got '" + std::string(text) + "'");
  }

 private:
  static std::optional<int64_t> integer(const char* text) {
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text, &end, 10);
    if (end == text || *end != '\0' || errno != 0) return std::nullopt;
    return value;
  }

  const char* program_;
  const char* options_;
};

// The options every training example takes: --device, --epochs, --batch-size and --seed.
struct TrainingOptions {
  tg::Device device{tg::kCPU};
  int epochs = 1;
  int64_t batch_size = 1;
  uint64_t seed = 0;
};

// Reads those options over `defaults`, the program's own values.
inline TrainingOptions parse_training_options(const CommandLine& command_line, int argc, char** argv,
                                              TrainingOptions defaults) {
  TrainingOptions options = defaults;
  for (const auto& [flag, value] : command_line.flags(argc, argv)) {
    if (flag == "--device") {
      options.device = command_line.device(flag, value);
    } else if (flag == "--epochs") {
      options.epochs = static_cast<int>(command_line.positive_integer(flag, value));
    } else if (flag == "--batch-size") {
      options.batch_size = command_line.positive_integer(flag, value);
    } else if (flag == "--seed") {
      options.seed = command_line.seed(flag, value);
    } else {
      command_line.unknown(flag);
    }
  }
  return options;
}

}  // namespace examples

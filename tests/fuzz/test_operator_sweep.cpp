// Every operator in the registry, called through the boxed dispatcher with arguments built from
// its schema (random_arguments.h) from fixed seeds: each call must return or raise tg::Error.
// The deterministic counterpart of the fuzz_api libFuzzer target, run by every unit leg (and
// the sanitized one). A crash names the operator and seed in doctest's context lines.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "random_arguments.h"

namespace {

// splitmix64: the bytes of one call, from (operator index, seed).
std::vector<uint8_t> input_bytes(uint64_t key, size_t size) {
  std::vector<uint8_t> bytes(size);
  uint64_t state = key;
  for (size_t i = 0; i < size; i += 8) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    for (size_t j = 0; j < 8 && i + j < size; ++j) bytes[i + j] = static_cast<uint8_t>(z >> (8 * j));
  }
  return bytes;
}

// Calls per operator: TG_SWEEP_CALLS overrides (a longer local run).
int calls_per_operator(int fallback) {
  const char* text = std::getenv("TG_SWEEP_CALLS");
  return text != nullptr ? std::atoi(text) : fallback;
}

void sweep(const tg_fuzz::ArgumentOptions& options, int calls) {
  tg::Dispatcher& dispatcher = tg::Dispatcher::singleton();
  const std::vector<std::string> names = dispatcher.allOperatorNames();
  REQUIRE(names.size() > 100);
  int returned = 0, refused = 0;
  // TG_SWEEP_VERBOSE=1 prints every tg::Error, to see how far calls get into the kernels.
  const bool verbose = std::getenv("TG_SWEEP_VERBOSE") != nullptr;
  for (size_t index = 0; index < names.size(); ++index) {
    const std::string& name = names[index];
    if (tg_fuzz::is_excluded(name)) continue;
    const tg::OperatorHandle op = dispatcher.findSchemaOrThrow(name);
    for (int seed = 0; seed < calls; ++seed) {
      INFO("operator ", name, ", seed ", seed);
      const std::vector<uint8_t> bytes = input_bytes(index * 1000003ULL + static_cast<uint64_t>(seed), 256);
      tg_fuzz::ByteSource source(bytes.data(), bytes.size());
      const tg_fuzz::CallOutcome outcome = tg_fuzz::call_with_random_arguments(op, source, options);
      CHECK_MESSAGE(outcome.kind != tg_fuzz::CallOutcome::ForeignException, outcome.message);
      if (verbose && outcome.kind == tg_fuzz::CallOutcome::TgError) std::fprintf(stderr, "%s\n", outcome.message.c_str());
      (outcome.kind == tg_fuzz::CallOutcome::Returned ? returned : refused) += 1;
    }
  }
  MESSAGE(returned, " calls returned, ", refused, " raised tg::Error");
  CHECK(returned > 0);
}

TEST_CASE("sweep: every operator with random arguments returns or raises tg::Error") {
  sweep({}, calls_per_operator(24));
}

TEST_CASE("sweep: every operator with zero-size tensors returns or raises tg::Error") {
  tg_fuzz::ArgumentOptions options;
  options.zero_size_tensors = true;
  sweep(options, calls_per_operator(8));
}

}  // namespace

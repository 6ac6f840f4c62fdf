// The fuzz targets without libFuzzer: the driver the normal (GCC) build runs in CI. It feeds a
// target every seed of its corpus, then a fixed number of inputs mutated from those seeds by a
// generator with a fixed seed, so that every CI run replays the same inputs. It has no coverage
// guidance and no sanitizers (the sanitized leg's libFuzzer run has both, docs/reliability.md);
// what it checks is the contract of fuzz_target.h: every input ends in a result or a tg::Error.
// Usage: fuzz_<name>_replay CORPUS_DIR MUTATIONS
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Bytes = std::vector<uint8_t>;

std::vector<Bytes> read_corpus(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file()) paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());  // the same order on every machine
  std::vector<Bytes> seeds;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return seeds;
}

// One of libFuzzer's simpler mutations, picked at random: flip, overwrite with a special byte,
// erase, duplicate a chunk, truncate, or splice in the tail of another seed.
Bytes mutate(const std::vector<Bytes>& seeds, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n); };
  Bytes input = seeds[pick(seeds.size())];
  const int edits = 1 + static_cast<int>(pick(4));
  for (int e = 0; e < edits; ++e) {
    const size_t at = pick(input.size() + 1);
    switch (pick(6)) {
      case 0:
        if (at < input.size()) input[at] ^= static_cast<uint8_t>(1u << pick(8));
        break;
      case 1: {
        static constexpr uint8_t special[] = {0, 1, 0x7f, 0x80, 0xff, '-', '9', '"', '[', '{', '\n'};
        if (at < input.size()) input[at] = special[pick(sizeof(special))];
        break;
      }
      case 2:
        input.erase(input.begin() + static_cast<std::ptrdiff_t>(at),
                    input.begin() + static_cast<std::ptrdiff_t>(std::min(input.size(), at + 1 + pick(16))));
        break;
      case 3: {
        const size_t len = std::min(input.size() - std::min(at, input.size()), 1 + pick(32));
        Bytes chunk(input.begin() + static_cast<std::ptrdiff_t>(at),
                    input.begin() + static_cast<std::ptrdiff_t>(at + len));
        input.insert(input.begin() + static_cast<std::ptrdiff_t>(at), chunk.begin(), chunk.end());
        break;
      }
      case 4:
        input.resize(at);
        break;
      default: {
        const Bytes& other = seeds[pick(seeds.size())];
        const size_t from = pick(other.size() + 1);
        input.resize(at);
        input.insert(input.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
        break;
      }
    }
  }
  return input;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR MUTATIONS\n", argv[0]);
    return 2;
  }
  const std::vector<Bytes> seeds = read_corpus(argv[1]);
  if (seeds.empty()) {
    std::fprintf(stderr, "fuzz replay: no seeds in %s\n", argv[1]);
    return 2;
  }
  for (const Bytes& seed : seeds) LLVMFuzzerTestOneInput(seed.data(), seed.size());
  std::mt19937_64 rng(13);
  const long mutations = std::strtol(argv[2], nullptr, 10);
  for (long i = 0; i < mutations; ++i) {
    const Bytes input = mutate(seeds, rng);
    LLVMFuzzerTestOneInput(input.data(), input.size());
  }
  std::printf("fuzz replay: %zu seeds and %ld mutated inputs, each a result or a tg::Error\n",
              seeds.size(), mutations);
  return 0;
}

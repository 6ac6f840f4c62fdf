// The seed corpora of the file-reader fuzz targets are valid files: every saved graph in
// corpus/graph_yaml loads and passes lint, every file in corpus/safetensors loads. Seeds that
// stopped loading (the format moved on) would leave the fuzzers mutating only error paths.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "jit/graph_yaml.h"
#include "jit/passes/lint.h"
#include "serialize/safetensors.h"

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> seeds(const std::string& target) {
  const char* root = std::getenv("TG_FUZZ_CORPUS");
  REQUIRE_MESSAGE(root != nullptr, "TG_FUZZ_CORPUS names tests/fuzz/corpus (meson test sets it)");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(root) / target)) files.push_back(entry.path());
  return files;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("seed corpus graph_yaml: every seed loads, passes lint and reads back equal") {
  const std::vector<fs::path> files = seeds("graph_yaml");
  CHECK(files.size() >= 4);
  for (const fs::path& path : files) {
    CAPTURE(path.string());
    tg::jit::Graph graph;
    REQUIRE_NOTHROW(graph = tg::jit::parse_graph_yaml(read(path), path.string()));
    CHECK_NOTHROW(tg::jit::lint_graph(graph));
    CHECK(tg::jit::parse_graph_yaml(graph.to_yaml(), "printed.yaml") == graph);
    CHECK(graph.nodes().size() > 0);
  }
}

TEST_CASE("seed corpus safetensors: every seed loads") {
  const std::vector<fs::path> files = seeds("safetensors");
  CHECK(files.size() >= 3);
  for (const fs::path& path : files) {
    CAPTURE(path.string());
    tg::serialize::SafetensorsFile file;
    REQUIRE_NOTHROW(file = tg::serialize::load_from_bytes(read(path), path.string()));
    CHECK(!file.tensors.empty());
  }
}

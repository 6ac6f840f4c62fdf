// Fuzz target: the saved-graph reader (tg::jit::parse_graph_yaml, runtime/jit/graph_yaml.h).
// Any text loads or raises tg::Error whose message starts "fuzz.yaml:LINE:" (the reader's
// promise); a graph that loads and that lint_graph accepts prints and reads back equal
// (graph_yaml.h's invariant).
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <tensorgen/tensorgen.h>

#include "fuzz_target.h"
#include "jit/graph_yaml.h"
#include "jit/passes/lint.h"

namespace tg_fuzz {
namespace {

constexpr const char* kFile = "fuzz.yaml";

// "fuzz.yaml:" followed by a line number and ':'.
bool has_file_line(const std::string& message) {
  const std::string prefix = std::string(kFile) + ":";
  if (message.rfind(prefix, 0) != 0) return false;
  size_t at = prefix.size();
  const size_t digits_begin = at;
  while (at < message.size() && std::isdigit(static_cast<unsigned char>(message[at]))) ++at;
  return at > digits_begin && at < message.size() && message[at] == ':';
}

}  // namespace

void fuzz_one(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  tg::jit::Graph graph;
  try {
    graph = tg::jit::parse_graph_yaml(text, kFile);
  } catch (const tg::Error& e) {
    if (!has_file_line(e.message())) {
      std::fprintf(stderr, "fuzz_graph_yaml: an error without file:line: %s\n", e.message().c_str());
      std::abort();
    }
    return;
  }
  try {
    tg::jit::lint_graph(graph);
  } catch (const tg::Error&) {
    return;  // the round trip is promised for graphs lint accepts only
  }
  const std::string printed = graph.to_yaml();
  if (!(tg::jit::parse_graph_yaml(printed, "printed.yaml") == graph)) {
    std::fprintf(stderr, "fuzz_graph_yaml: the graph read back differently from\n%s\n", printed.c_str());
    std::abort();
  }
}

}  // namespace tg_fuzz

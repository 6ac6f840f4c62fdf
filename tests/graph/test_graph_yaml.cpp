// The saved graph format: round trips, and every kind of broken file reported at its place.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <regex>

#include "graph_test_models.h"
#include "jit/jit.h"

using namespace tg;
using namespace tg::graph_test;
using tg::jit::Graph;

namespace {

const std::string kValid = R"(format: tensorgen-graph/1
inputs:
  - {name: x, value: "%0", dtype: float32, sizes: [2, 3], device: cpu}
nodes:
  - op: tg::relu
    args: {self: "%0"}
    outputs: [{value: "%1", dtype: float32, sizes: [2, 3], device: cpu}]
  - op: tg::add.Tensor
    args: {self: "%1", other: "%0", alpha: 1}
    outputs: [{value: "%2", dtype: float32, sizes: [2, 3], device: cpu}]
outputs: ["%2"]
)";

// kValid with line `line` (1-based) replaced.
std::string with_line(int line, const std::string& text) {
  std::istringstream in(kValid);
  std::string out, current;
  for (int i = 1; std::getline(in, current); ++i) out += (i == line ? text : current) + "\n";
  return out;
}

std::string load_error(const std::string& text) {
  try {
    jit::parse_graph_yaml(text, "bad.yaml");
  } catch (const ValueError& e) {
    return e.message();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("graph_yaml: a hand-written file loads, runs, and round-trips") {
  const Graph g = jit::parse_graph_yaml(kValid, "good.yaml");
  CHECK(g.nodes().size() == 2);
  CHECK(g.name(g.inputs()[0]) == "x");
  CHECK(jit::parse_graph_yaml(g.to_yaml(), "again.yaml") == g);
  const Tensor x = randn({2, 3});
  jit::StaticModule m(g);
  CHECK(bitwise_equal(m.run({x})[0], relu(x) + x));
}

TEST_CASE("graph_yaml: traced graphs round-trip exactly: load(save(g)) == g") {
  const MlpShape s;
  std::vector<Tensor> in = mlp_params(s, true);
  in.push_back(randn({4, s.in}));
  in.push_back(randn({4, s.out}));
  const Graph train = jit::trace(mlp_train_step, in);
  const std::string path = "graph_yaml_roundtrip_test.yaml";
  train.save(path);
  const Graph loaded = jit::load(path);
  std::remove(path.c_str());
  CHECK(loaded == train);
  CHECK(loaded.to_yaml() == train.to_yaml());
  // Constants (here x * 0.5's wrapped number) and doubles keep their exact values and kinds.
  std::vector<Tensor> tin = transformer_params(16, 32);
  tin.push_back(randn({2, 4, 16}));
  const Graph block = jit::trace(transformer_block, tin);
  const Graph block_again = jit::parse_graph_yaml(block.to_yaml(), "block.yaml");
  CHECK(block_again == block);
  jit::StaticModule a(block), b(block_again);
  CHECK(bitwise_equal(a.run(tin)[0], b.run(tin)[0]));
}

TEST_CASE("graph_yaml: each kind of broken file gives file:line:column and what was expected") {
  struct Case {
    const char* what;
    std::string text;
    const char* position;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"invalid YAML", with_line(6, R"(    args: {self: "%0")"), "bad.yaml:7:5: ", "invalid YAML"},
      {"wrong format", with_line(1, "format: tensorgen-graph/9"), "bad.yaml:1:9: ", "expected format 'tensorgen-graph/1'"},
      {"unknown key", with_line(5, "  - opp: tg::relu"), "bad.yaml:5:5: ", "unknown key 'opp'; expected one of: op, args, outputs"},
      {"unknown overload", with_line(8, "  - op: tg::add.Tensr"), "bad.yaml:8:9: ",
       "unknown operator 'tg::add.Tensr' (expected a registered overload such as tg::add.Tensor); did you mean 'tg::add.Tensor'?"},
      {"unknown argument", with_line(9, R"(    args: {self: "%1", othr: "%0", alpha: 1})"), "bad.yaml:9:24: ",
       "tg::add.Tensor has no argument 'othr'"},
      {"missing argument", with_line(9, R"(    args: {self: "%1", alpha: 1})"), "bad.yaml:9:11: ",
       "tg::add.Tensor: missing argument 'other' (Tensor)"},
      {"constant for a tensor", with_line(9, R"(    args: {self: "%1", other: 2, alpha: 1})"), "bad.yaml:9:31: ",
       "argument 'other' expects a tensor value reference like \"%3\", got '2'"},
      {"value for a constant", with_line(9, R"(    args: {self: "%1", other: "%0", alpha: "%0"})"), "bad.yaml:9:44: ",
       "argument 'alpha' expects a constant of type Scalar"},
      {"not a number", with_line(9, R"(    args: {self: "%1", other: "%0", alpha: abc})"), "bad.yaml:9:44: ",
       "expected a number (an integer), got 'abc'"},
      {"undefined value", with_line(9, R"(    args: {self: "%7", other: "%0", alpha: 1})"), "bad.yaml:9:18: ",
       "value %7 is used before it is defined"},
      {"value defined twice", with_line(10, R"(    outputs: [{value: "%1", dtype: float32, sizes: [2, 3], device: cpu}])"),
       "bad.yaml:10:23: ", "value %1 is defined twice (first at line 7)"},
      {"wrong number of outputs", with_line(7, "    outputs: []"), "bad.yaml:7:14: ",
       "tg::relu returns 1 tensor(s); the node lists 0 output(s)"},
      {"unknown dtype", with_line(3, R"(  - {name: x, value: "%0", dtype: float33, sizes: [2, 3], device: cpu})"),
       "bad.yaml:3:35: ", "unknown dtype 'float33'"},
      {"negative size", with_line(3, R"(  - {name: x, value: "%0", dtype: float32, sizes: [-2, 3], device: cpu})"),
       "bad.yaml:3:52: ", "expected a size >= 0, got -2"},
      {"sizes whose product overflows", with_line(3, R"(  - {name: x, value: "%0", dtype: float32, sizes: [4294967296, 4294967296], device: cpu})"),
       "bad.yaml:3:51: ", "expected sizes whose product fits in int64, got [4294967296, 4294967296]"},
      {"undefined graph output", with_line(11, R"(outputs: ["%9"])"), "bad.yaml:11:11: ",
       "value %9 is used before it is defined"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const std::string error = load_error(c.text);
    CAPTURE(error);
    CHECK(error.rfind(c.position, 0) == 0);
    CHECK(error.find(c.message) != std::string::npos);
  }
}

TEST_CASE("graph_yaml: a missing file is a clear error") {
  CHECK_THROWS_WITH_AS(jit::load("no/such/graph.yaml"), doctest::Contains("cannot open 'no/such/graph.yaml'"),
                       ValueError);
}

TEST_CASE("graph_yaml: 3000 mutated files give tg::ValueError or load, never anything else") {
  std::mt19937 rng(99);
  const std::string alphabet = "%:{}[],\"- \n0123456789abcdefxyz.#!&*|>'";
  int loaded = 0, rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text = kValid;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.erase(at, 1 + rng() % 8);
          break;
        default:
          text.insert(at, 1, alphabet[rng() % alphabet.size()]);
      }
    }
    CAPTURE(text);
    try {
      const Graph g = jit::parse_graph_yaml(text, "mutated.yaml");
      jit::lint_graph(g);
      ++loaded;
    } catch (const ValueError& e) {
      REQUIRE(e.message().rfind("mutated.yaml:", 0) == 0);
      ++rejected;
    }
  }
  CHECK(rejected > 0);
  MESSAGE(loaded << " mutated files still loaded, " << rejected << " were rejected with file:line:column");
}

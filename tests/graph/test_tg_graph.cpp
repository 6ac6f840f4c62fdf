// tg-graph as a user runs it: a separate process, on files written by this one.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

#include "graph_test_models.h"
#include "jit/jit.h"
#include "serialize/safetensors.h"

using namespace tg;
using namespace tg::graph_test;

namespace {

struct Result {
  int status = -1;
  std::string output;  // stdout and stderr
};

Result run_tool(const std::string& arguments) {
  const char* tool = std::getenv("TG_GRAPH_TOOL");
  REQUIRE_MESSAGE(tool != nullptr, "TG_GRAPH_TOOL must name the tg-graph executable (meson test sets it)");
  const std::string command = std::string(tool) + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  Result result;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.output.append(buffer, n);
  const int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string saved_mlp(const std::string& path) {
  const MlpShape s;
  std::vector<Tensor> in = mlp_params(s, false);
  in.push_back(randn({4, s.in}));
  std::vector<std::string> names = kMlpParamNames;
  names.push_back("x");
  jit::trace(mlp_forward, in, names).save(path);
  return path;
}

}  // namespace

TEST_CASE("tg-graph show prints a saved graph") {
  const std::string file = saved_mlp("tg_graph_show.yaml");
  const Result r = run_tool("show " + file);
  CHECK(r.status == 0);
  CHECK(r.output.find("5 inputs") != std::string::npos);
  CHECK(r.output.find("fc1.weight") != std::string::npos);
  CHECK(r.output.find("tg::addmm") != std::string::npos);
}

TEST_CASE("tg-graph plan prints the figures and draws the plan") {
  const std::string file = saved_mlp("tg_graph_plan.yaml");
  std::remove("tg_graph_plan.svg");
  const Result r = run_tool("plan " + file + " --shapes x=64x32 --svg tg_graph_plan.svg");
  INFO(r.output);
  CHECK(r.status == 0);
  for (const char* figure : {"arena ", "lower_bound ", "naive_total ", "planning_time ", "arena_over_lower_bound "}) {
    CHECK(r.output.find(figure) != std::string::npos);
  }
  // The hidden activation of batch 64 (64 x 64 floats) is planned, so the arena holds it.
  const size_t at = r.output.find("\narena ");
  REQUIRE(at != std::string::npos);
  CHECK(std::stoll(r.output.substr(at + 7)) >= 64 * 64 * 4);
  std::ifstream svg("tg_graph_plan.svg");
  std::stringstream text;
  text << svg.rdbuf();
  CHECK(text.str().rfind("<svg", 0) == 0);
  CHECK(text.str().find("<rect") != std::string::npos);
}

TEST_CASE("tg-graph reports bad files and bad command lines") {
  {
    std::ofstream bad("tg_graph_bad.yaml");
    bad << "format: tensorgen-graph/1\ninputs: []\nnodes:\n  - op: tg::nope\n    args: {}\n    outputs: []\noutputs: []\n";
  }
  Result r = run_tool("show tg_graph_bad.yaml");
  CHECK(r.status == 1);
  CHECK(r.output.find("tg_graph_bad.yaml:4:9: unknown operator 'tg::nope'") != std::string::npos);
  r = run_tool("frobnicate x.yaml");
  CHECK(r.status == 2);
  CHECK(r.output.find("unknown command 'frobnicate'") != std::string::npos);
  r = run_tool("plan " + saved_mlp("tg_graph_plan2.yaml") + " --shapes x=4");
  CHECK(r.status == 1);
  CHECK(r.output.find("input 'x' has rank 2; --shapes gives 1 sizes") != std::string::npos);
}

TEST_CASE("tg-graph run: a saved training step reloads in a fresh process with the same results") {
  const MlpShape s;
  std::vector<Tensor> in = mlp_params(s, true);
  in.push_back(randn({6, s.in}));
  in.push_back(randn({6, s.out}));
  std::vector<std::string> names = kMlpParamNames;
  names.push_back("x");
  names.push_back("target");
  jit::trace(mlp_train_step, in, names).save("tg_graph_train.yaml");
  // A different batch from the traced one: the file is not tied to its example.
  std::vector<Tensor> run_in = mlp_params(s, false);
  run_in.push_back(randn({9, s.in}));
  run_in.push_back(randn({9, s.out}));
  serialize::NamedTensors named;
  for (size_t i = 0; i < names.size(); ++i) named.emplace_back(names[i], run_in[i]);
  serialize::save_tensors(named, "tg_graph_train_in.safetensors");
  std::remove("tg_graph_train_out.safetensors");
  const Result r = run_tool("run tg_graph_train.yaml --inputs tg_graph_train_in.safetensors --out tg_graph_train_out.safetensors");
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (size_t i = 0; i < 4; ++i) run_in[i].requires_grad_(true);  // eager needs them to take gradients
  const std::vector<Tensor> eager = mlp_train_step(run_in);
  const serialize::NamedTensors got = serialize::load_tensors("tg_graph_train_out.safetensors");
  REQUIRE(got.size() == eager.size());
  for (size_t k = 0; k < got.size(); ++k) {
    CAPTURE(k);
    CHECK(got[k].first == "output" + std::to_string(k));
    CHECK(bitwise_equal(got[k].second, eager[k].detach()));
  }
  const Result missing = run_tool("run tg_graph_train.yaml --inputs tg_graph_plan.svg --out x.safetensors");
  CHECK(missing.status == 1);
  named.pop_back();
  serialize::save_tensors(named, "tg_graph_partial.safetensors");
  const Result partial = run_tool("run tg_graph_train.yaml --inputs tg_graph_partial.safetensors --out x.safetensors");
  CHECK(partial.status == 1);
  CHECK(partial.output.find("has no tensor named 'target'") != std::string::npos);
}

// Export to ONNX (tools/export_onnx.py) checked against onnxruntime, through the project's
// .venv Python; the test skips, saying why, when that Python or its packages are missing.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>

#include "graph_test_models.h"
#include "jit/jit.h"
#include "npy_io.h"

using namespace tg;
using namespace tg::graph_test;

namespace {

std::string python() {
  const char* p = std::getenv("TG_VENV_PYTHON");
  return p ? p : "";
}

bool python_ready() {
  if (python().empty() || !std::filesystem::exists(python())) return false;
  return std::system((python() + " -c 'import onnx, onnxruntime, numpy, yaml' 2>/dev/null").c_str()) == 0;
}

// Writes the graph, inputs and tensorgen's outputs to `dir`, then runs the Python check.
int compare_in_onnxruntime(const jit::Graph& g, const std::vector<Tensor>& in, const std::string& dir,
                           std::string* output) {
  std::filesystem::create_directories(dir);
  g.save(dir + "/graph.yaml");
  jit::StaticModule m(g);
  const std::vector<Tensor> out = m.run(in);
  for (size_t k = 0; k < in.size(); ++k) save_npy(in[k], dir + "/in_" + std::to_string(k) + ".npy");
  for (size_t k = 0; k < out.size(); ++k) save_npy(out[k], dir + "/out_" + std::to_string(k) + ".npy");
  const std::string command = python() + " " + std::getenv("TG_ONNX_COMPARE") + " " + dir + "/graph.yaml " + dir + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output->append(buffer, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("onnx: the MLP and a transformer block agree with onnxruntime" *
          doctest::skip(!python_ready())) {
  {
    const MlpShape s;
    std::vector<Tensor> in = mlp_params(s, false);
    in.push_back(randn({8, s.in}));
    std::string output;
    const int status = compare_in_onnxruntime(jit::trace(mlp_forward, in), in, "onnx_mlp", &output);
    INFO(output);
    CHECK(status == 0);
    CHECK(output.find("output0 shape [8, 10]") != std::string::npos);
  }
  {
    std::vector<Tensor> in = transformer_params(32, 128);
    in.push_back(randn({2, 8, 32}));
    std::string output;
    const int status = compare_in_onnxruntime(jit::trace(transformer_block, in), in, "onnx_block", &output);
    INFO(output);
    CHECK(status == 0);
  }
}

TEST_CASE("onnx: unsupported operators are listed by name, never dropped" * doctest::skip(!python_ready())) {
  auto fn = [](const std::vector<Tensor>& x) -> std::vector<Tensor> { return {relu(cumsum(x[0], 0)).exp()}; };
  const std::vector<Tensor> in = {randn({4, 3})};
  std::string output;
  const int status = compare_in_onnxruntime(jit::trace(fn, in), in, "onnx_unsupported", &output);
  INFO(output);
  CHECK(status != 0);
  CHECK(output.find("unsupported operators: tg::cumsum, tg::exp") != std::string::npos);
}

TEST_CASE("onnx: the Python peers are present" * doctest::skip(python_ready())) {
  MESSAGE("skipped the onnxruntime comparisons: " << (python().empty() ? "TG_VENV_PYTHON is not set"
                                                                       : python() + " lacks onnx/onnxruntime/numpy"));
}

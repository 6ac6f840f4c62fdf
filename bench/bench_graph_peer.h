// bench_graph's LibTorch column: the same models as tests/graph/graph_test_models.h written
// against LibTorch, timed eagerly. The interface holds only plain types, so that tensorgen and
// LibTorch never meet in one translation unit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bench::graph_peer {

struct HostTensor {
  std::vector<int64_t> sizes;
  std::vector<float> data;  // contiguous
};

// Best microseconds per call of `model` ("mlp_forward", "mlp_train_step", "transformer_block",
// taking the inputs in graph_test_models.h's order) in LibTorch eager on `threads` threads, over
// `rounds` rounds of `iterations` calls. Negative, with *note saying why, when LibTorch is not
// built in or the model is unknown.
double libtorch_us(const std::string& model, const std::vector<HostTensor>& inputs, long iterations, int rounds,
                   int threads, std::string* note);

}  // namespace bench::graph_peer

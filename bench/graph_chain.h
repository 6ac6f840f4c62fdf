// The 50-op chain of 4x4 tensors that bench_graphs times and count_graph_replay counts: the
// kernels are tiny, so its time is per-op overhead. One definition, so both measure the same.
#pragma once

#include <tensorgen/tensorgen.h>

#include "bench_util.h"

namespace bench {

inline constexpr int kChainOps = 50;

// x, y: 4x4 inputs; the step computes ((x + y).relu() + y).relu()... 25 times.
struct GraphChain {
  tg::Tensor x = tg::randn({4, 4});
  tg::Tensor y = tg::randn({4, 4});
  void operator()() const {
    tg::Tensor h = x;
    for (int i = 0; i < kChainOps / 2; ++i) h = (h + y).relu();
    do_not_optimize(h.data_ptr());
  }
};

}  // namespace bench

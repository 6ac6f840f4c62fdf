// ParamBatches: the parameters of one step split into the lists a fused kernel takes in one
// call. Invariant: every tensor of a batch is on `device` with dtype `dtype`, and shares its
// `flag` (a per-call kernel argument such as SGD's is_first_step).
#pragma once

#include <vector>

#include "core/tensor.h"

namespace tg::optim {

struct ParamBatch {
  Device device;
  ScalarType dtype;
  bool flag;
  std::vector<Tensor> params, grads;
  std::vector<Tensor> state, state2, state3, steps;  // the kernel's state lists, in its order
};

class ParamBatches {
 public:
  // The batch for parameters like `param` with this `flag`, made on first use.
  ParamBatch& batch_for(const Tensor& param, bool flag = false) {
    for (ParamBatch& batch : batches_) {
      if (batch.device == param.device() && batch.dtype == param.scalar_type() && batch.flag == flag) return batch;
    }
    batches_.push_back(ParamBatch{param.device(), param.scalar_type(), flag, {}, {}, {}, {}, {}, {}});
    return batches_.back();
  }
  std::vector<ParamBatch>& batches() { return batches_; }

 private:
  std::vector<ParamBatch> batches_;
};

}  // namespace tg::optim

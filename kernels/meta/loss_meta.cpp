// Meta functions of the losses with kernels (schemas/loss.yaml): nll_loss_forward and
// nll_loss_backward. self is [N, C] or [C] (unbatched), target [N] or [] of int64 classes.
#include "NativeFunctions.h"
#include "core/reduction.h"

namespace tg {

namespace {

void check_reduction(const char* op, int64_t reduction) {
  TG_CHECK_VALUE(reduction >= Reduction::None && reduction <= Reduction::Sum, "[", op, "] reduction must be 0 (None), ",
                 "1 (Mean) or 2 (Sum), got ", reduction);
}

// The checks nll_loss_forward and nll_loss_backward share.
void check_nll_loss_inputs(const char* op, const Tensor& self, const Tensor& target,
                           const std::optional<Tensor>& weight, int64_t reduction) {
  TG_CHECK_VALUE(self.dim() == 1 || self.dim() == 2, "[", op, "] expected input of 1 or 2 dims ([C] or [N, C]), got ",
                 "a tensor of shape ", self.sizes());
  TG_CHECK_VALUE(target.dim() <= 1, "[", op, "] expected target of 0 or 1 dims, got a tensor of shape ",
                 target.sizes());
  TG_CHECK_TYPE(target.scalar_type() == kLong, "[", op, "] expected target of class indices of dtype int64, got ",
                target.scalar_type());
  const bool unbatched = self.dim() == 1 && target.dim() == 0;
  TG_CHECK_VALUE(unbatched || self.size(0) == target.size(0), "[", op, "] expected input batch size (",
                 self.size(0), ") to match target batch size (", target.dim() == 0 ? 1 : target.size(0),
                 "): input of shape ", self.sizes(), ", target of shape ", target.sizes());
  const int64_t classes = self.size(-1);
  if (weight && weight->defined()) {
    TG_CHECK_VALUE(weight->dim() == 1 && weight->numel() == classes, "[", op, "] weight tensor should be defined ",
                   "either for all ", classes, " classes or no classes but got weight tensor of shape: ",
                   weight->sizes());
  }
  check_reduction(op, reduction);
}

}  // namespace

std::array<TensorMeta, 2> meta::nll_loss_forward_output(const Tensor& self, const Tensor& target,
                                                        const std::optional<Tensor>& weight, int64_t reduction,
                                                        int64_t /*ignore_index*/) {
  check_nll_loss_inputs("nll_loss", self, target, weight, reduction);
  DimVector output_sizes;
  if (reduction == Reduction::None && self.dim() == 2) output_sizes.push_back(self.size(0));
  return {TensorMeta{output_sizes, self.scalar_type()}, TensorMeta{DimVector(), self.scalar_type()}};
}

TensorMeta meta::nll_loss_backward_grad_input(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                              const std::optional<Tensor>& weight, int64_t reduction,
                                              int64_t /*ignore_index*/, const Tensor& total_weight) {
  check_nll_loss_inputs("nll_loss_backward", self, target, weight, reduction);
  TG_CHECK_VALUE(total_weight.numel() == 1, "[nll_loss_backward] expected total_weight to be a single element ",
                 "tensor, got a tensor of shape ", total_weight.sizes());
  if (reduction == Reduction::None && self.dim() == 2) {
    TG_CHECK_VALUE(grad_output.dim() == 1 && grad_output.size(0) == self.size(0), "[nll_loss_backward] expected ",
                   "grad_output of shape [", self.size(0), "] for reduction None, got ", grad_output.sizes());
  } else {
    TG_CHECK_VALUE(grad_output.numel() == 1, "[nll_loss_backward] expected grad_output to be a single element ",
                   "tensor for a reduced loss, got a tensor of shape ", grad_output.sizes());
  }
  return TensorMeta{self.sizes(), self.scalar_type()};
}

}  // namespace tg

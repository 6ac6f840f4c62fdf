// Full reductions (over every dim) as the dim-wise reductions with no dim given, so one
// structured kernel per reduction serves both overloads; var and std by unbiased as their
// correction overloads.
#include "NativeFunctions.h"
#include "cpu/launch.h"
#include "tensorgen/ops.h"

namespace tg::native {

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype) {
  cpu::LaunchesOnly launches_only;  // forwards only: see Note [Launch replay]
  return tg::sum(self, OptionalIntArrayRef(), /*keepdim=*/false, dtype);
}

Tensor mean(const Tensor& self, std::optional<ScalarType> dtype) {
  cpu::LaunchesOnly launches_only;  // forwards only: see Note [Launch replay]
  return tg::mean(self, OptionalIntArrayRef(), /*keepdim=*/false, dtype);
}

Tensor max(const Tensor& self) {
  cpu::LaunchesOnly launches_only;  // forwards only: see Note [Launch replay]
  // A maximum over no elements has no value (sum's identity 0 has no counterpart here).
  TG_CHECK(self.numel() > 0, "[max] expected a non-empty tensor for a reduction over all dims, got sizes ",
           self.sizes(), "; specify the reduction dim with the 'dim' argument");
  return tg::amax(self);
}

// var and std without a correction argument: unbiased is correction 1, biased 0.
Tensor var(const Tensor& self, bool unbiased) {
  return tg::var(self, OptionalIntArrayRef(), Scalar(unbiased ? 1 : 0), /*keepdim=*/false);
}

Tensor var_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return tg::var(self, dim, Scalar(unbiased ? 1 : 0), keepdim);
}

Tensor std(const Tensor& self, bool unbiased) {
  return tg::std(self, OptionalIntArrayRef(), Scalar(unbiased ? 1 : 0), /*keepdim=*/false);
}

Tensor std_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return tg::std(self, dim, Scalar(unbiased ? 1 : 0), keepdim);
}

}  // namespace tg::native

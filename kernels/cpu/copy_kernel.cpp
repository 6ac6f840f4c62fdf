// copy_ on the CPU, and the copy helpers the other CPU kernels use (cpu/copy.h).
#include "NativeFunctions.h"
#include "cpu/copy.h"
#include "cpu/loops.h"
#include "cpu/transpose_copy.h"
#include "dtype_dispatch.h"
#include "shape_utils.h"

namespace tg {

namespace {

// t's elements as another dtype of the same item size (the same storage, sizes, strides and
// offset), for kernels that move bytes without giving them a meaning.
Tensor bytes_as(const Tensor& t, ScalarType dtype) {
  auto impl = make_intrusive<TensorImpl>(t.storage(), dtype, t.sizes());
  impl->set_sizes_and_strides(t.sizes(), t.strides());
  impl->set_storage_offset(t.storage_offset());
  return Tensor(std::move(impl));
}

}  // namespace

void cpu::copy_into(const Tensor& dst, const Tensor& src) {
  if (dst.is_same(src)) return;
  // A bool-to-bool copy moves bytes: loading a byte other than 0 or 1 (memory `empty` never
  // wrote) as a C++ bool is undefined behaviour.
  if (dst.scalar_type() == kBool && src.scalar_type() == kBool) {
    return copy_into(bytes_as(dst, kByte), bytes_as(src, kByte));
  }
  if (copy_transposed(dst, src)) return;
  // elementwise_kernel copies an input that partly overlaps its output before writing.
  TG_DISPATCH_ALL_TYPES(dst.scalar_type(), "copy_", [&] {
    elementwise_kernel(dst, [](scalar_t x) { return x; }, src);
  });
}

Tensor cpu::contiguous_copy(const Tensor& src) {
  Tensor result = make_empty_tensor(src.sizes(), src.scalar_type(), src.device());
  copy_into(result, src);
  return result;
}

Tensor cpu::contiguous_as(const Tensor& src, ScalarType dtype) {
  if (src.is_contiguous() && src.scalar_type() == dtype) return src;
  Tensor result = make_empty_tensor(src.sizes(), dtype, src.device());
  copy_into(result, src);
  return result;
}

Tensor native::copy_cpu_(const Tensor& self, const Tensor& src, bool /*non_blocking*/) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_CHECK_NOT_IMPLEMENTED(self.is_cpu() && src.is_cpu(), "[copy_] copies between devices are not implemented yet: ",
                           "self is on ", self.device(), ", src on ", src.device());
  for (int64_t d = 0; d < self.dim(); ++d) {
    TG_CHECK_VALUE(self.sizes()[d] <= 1 || self.strides()[d] != 0, "[copy_] unsupported operation: more than one ",
                   "element of the written-to tensor (shape ", self.sizes(), ", strides ", self.strides(),
                   ") refers to a single memory location; clone() it first");
  }
  expand_strides(src.sizes(), src.strides(), self.sizes(), "copy_");  // src must broadcast to self
  cpu::copy_into(self, src);
  return self;
}

}  // namespace tg

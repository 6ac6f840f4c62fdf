// Tensor::to(other) and Tensor::set_data: LibTorch's small Tensor methods that are not
// operators (declared in the generated TensorBody.h).
#include "autograd/autograd_meta.h"
#include "tensorgen/ops.h"

namespace tg {

Tensor Tensor::to(const Tensor& other, bool non_blocking, bool copy) const {
  return to(other.device(), other.scalar_type(), non_blocking, copy);
}

// Note [set_data]
// LibTorch's x.set_data(y) (Python's x.data = y) gives x y's storage and geometry while x
// keeps its autograd identity (requires_grad, grad, hooks, grad_fn). Here the version counter
// lives in the storage, so x then shares y's version counter too; and x keeps its dtype,
// since tensorgen's TensorImpl has a fixed dtype: a new_data of another dtype is refused.
void Tensor::set_data(const Tensor& new_data) const {
  TG_CHECK_VALUE(defined() && new_data.defined(), "[set_data] expected defined tensors");
  TG_CHECK_TYPE(device() == new_data.device(), "[set_data] Attempted to call `variable.set_data(tensor)`, but ",
                "`variable` and `tensor` have incompatible tensor type: `variable` is on ", device(),
                " and `tensor` on ", new_data.device());
  TG_CHECK_TYPE(scalar_type() == new_data.scalar_type(), "[set_data] tensorgen keeps a tensor's dtype: `variable` is ",
                scalar_type(), " and `tensor` is ", new_data.scalar_type());
  TensorImpl* impl = unsafeGetTensorImpl();
  const TensorImpl* source = new_data.unsafeGetTensorImpl();
  impl->set_storage(source->storage());
  impl->set_sizes_and_strides(source->sizes(), source->strides());
  impl->set_storage_offset(source->storage_offset());
}

}  // namespace tg

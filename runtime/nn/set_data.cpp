#include "nn/set_data.h"

#include "autograd/autograd_meta.h"

namespace tg::nn::detail {
namespace {

// TensorImpl has no dtype setter yet: adding one to core/tensor_impl.h is a one-line change,
// but it recompiles every file of the library, which this change could not afford. Until the
// lead adds `void TensorImpl::set_dtype(ScalarType)` at merge time, the member is reached
// through the standard explicit-instantiation rule (access checking does not apply to the
// names in an explicit instantiation); replace both templates below by a call to set_dtype.
ScalarType TensorImpl::*dtype_member();
template <ScalarType TensorImpl::*Member>
struct DtypeMember {
  friend ScalarType TensorImpl::*dtype_member() { return Member; }
};
template struct DtypeMember<&TensorImpl::dtype_>;

}  // namespace

void set_data(const Tensor& target, const Tensor& source) {
  TensorImpl* impl = target.unsafeGetTensorImpl();
  if (target.dtype() != source.dtype()) {
    // A leaf's AccumulateGrad records the dtype its gradient is cast to; drop it so that the
    // next graph makes one for the new dtype (PyTorch's set_data does the same).
    if (autograd::AutogradMeta* meta = autograd::impl::get_autograd_meta(target)) {
      std::lock_guard<std::mutex> lock(meta->mutex_);
      meta->grad_accumulator_.reset();
    }
  }
  const DispatchKey old_backend = backend_key_for(target.device().type());
  impl->set_storage(source.storage());
  impl->*dtype_member() = source.dtype();
  impl->set_sizes_and_strides(source.sizes(), source.strides());
  impl->set_storage_offset(source.storage_offset());
  impl->remove_key(old_backend);
  impl->add_key(backend_key_for(source.device().type()));
}

}  // namespace tg::nn::detail

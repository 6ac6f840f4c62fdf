#include "nn/set_data.h"

#include "autograd/autograd_meta.h"

namespace tg::nn::detail {
void set_data(const Tensor& target, const Tensor& source) {
  TensorImpl* impl = target.unsafeGetTensorImpl();
  if (target.dtype() != source.dtype()) {
    // A leaf's AccumulateGrad records the dtype its gradient is cast to; drop it so that the
    // next graph makes one for the new dtype (PyTorch's set_data does the same).
    autograd::impl::release_grad_accumulator(target);
  }
  const DispatchKey old_backend = backend_key_for(target.device().type());
  impl->set_storage(source.storage());
  impl->set_dtype(source.dtype());
  impl->set_sizes_and_strides(source.sizes(), source.strides());
  impl->set_storage_offset(source.storage_offset());
  impl->remove_key(old_backend);
  impl->add_key(backend_key_for(source.device().type()));
}

}  // namespace tg::nn::detail

#include "nn/set_data.h"

namespace tg::nn::detail {

void set_data(const Tensor& target, const Tensor& source) {
  TG_CHECK(target.dtype() == source.dtype(), "[nn::Module::to] cannot convert a module's tensor from ", target.dtype(),
           " to ", source.dtype(), ": a tensor's dtype is fixed in tensorgen (docs/porting.md); make the module's ",
           "tensors in the dtype wanted instead, e.g. with tg::set_default_dtype before constructing it");
  TensorImpl* impl = target.unsafeGetTensorImpl();
  const DispatchKey old_backend = backend_key_for(target.device().type());
  impl->set_storage(source.storage());
  impl->set_sizes_and_strides(source.sizes(), source.strides());
  impl->set_storage_offset(source.storage_offset());
  impl->remove_key(old_backend);
  impl->add_key(backend_key_for(source.device().type()));
}

}  // namespace tg::nn::detail

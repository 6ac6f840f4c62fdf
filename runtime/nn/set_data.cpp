#include "nn/set_data.h"

namespace tg::nn::detail {

void replace_storage(const Tensor& target, const Tensor& source) {
  TG_CHECK(target.dtype() == source.dtype(), "[nn::Module::to] converting a parameter from ", target.dtype(), " to ",
           source.dtype(), " needs Tensor::set_data, which this build's core does not have yet");
  TensorImpl* impl = target.unsafeGetTensorImpl();
  const DispatchKey old_backend = backend_key_for(target.device().type());
  impl->set_storage(source.storage());
  impl->set_sizes_and_strides(source.sizes(), source.strides());
  impl->set_storage_offset(source.storage_offset());
  impl->remove_key(old_backend);
  impl->add_key(backend_key_for(source.device().type()));
}

}  // namespace tg::nn::detail

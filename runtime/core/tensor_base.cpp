#include "core/tensor_base.h"

#include <sstream>

#include "core/pinned_memory.h"

namespace tg {

namespace detail {

void undefined_tensor_error(const char* what) {
  TG_THROW(Error, "[tensor] cannot ", what, " an undefined tensor (a default-constructed tg::Tensor); "
           "create one with a factory such as tg::empty or tg::zeros");
}

void data_ptr_dtype_error(ScalarType expected, ScalarType actual) {
  TG_THROW(TypeError, "[data_ptr] expected a tensor of dtype ", expected, " for this element type, but the tensor has dtype ",
           actual);
}

void no_dims_error(const char* op, int64_t dim) {
  TG_THROW(IndexError, "[", op, "] dimension specified as ", dim, " but tensor has no dimensions");
}

}  // namespace detail

bool TensorBase::is_pinned() const {
  const Storage& memory = impl().storage();
  return is_cpu() && memory && is_pinned_memory(memory->data_ptr());
}

std::string TensorBase::toString() const {
  if (!defined()) return "UndefinedTensor";
  std::ostringstream out;
  out << "Tensor(dtype=" << dtype() << ", device=" << device() << ", sizes=" << sizes() << ")";
  return out.str();
}

}  // namespace tg

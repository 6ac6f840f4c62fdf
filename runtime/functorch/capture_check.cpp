// grad, vjp and jvp refuse an in-place write into a tensor captured from outside the
// transform, as functorch's checkForInvalidMutationOnCaptures: the write would carry the
// transform's derivative (or tangent) into a tensor that outlives the transform.
#include <string>

#include "autograd/inplace_check_hook.h"
#include "core/error.h"
#include "core/tensor_creation_hook.h"
#include "functorch/interpreter_stack.h"

namespace tg::functorch {
namespace {

// Note [Captured tensors]: functorch tells a captured tensor by its wrapper (none at the
// transform's level); tensorgen's grad and jvp run on plain tensors, so a tensor is captured
// when it was not created while the innermost grad/vjp/jvp ran. While one runs, TensorImpl's
// creation hook records every new tensor of the thread in the transform's set
// (interpreter_stack.cpp); a recorded address cannot belong to a tensor that existed before, as
// that tensor was alive, holding its address, all along. The check runs in autograd's kernel of
// every in-place operation: while a grad/vjp/jvp runs, the thread includes the Autograd key, so
// a write reaches the check even when no argument has history (`captured.zero_()`), and is
// refused as functorch refuses it.
void check_capture(std::string_view op, const Tensor& self) {
  const Interpreter* transform = innermost_differentiating();
  if (transform == nullptr || !self.defined()) return;
  if (created_inside_innermost(self.unsafeGetTensorImpl())) return;
  TG_CHECK(false, "[", to_string(transform->type), "] ", op,
           ": in-place write into a tensor captured from outside the transform (it existed before ",
           to_string(transform->type), " started): the write would carry the transform's derivatives out of "
           "it. Write into a copy made inside the function (t.clone()) or pass the tensor as an input");
}

void record_creation(const TensorImpl* created) { note_created(created); }

const bool registered = [] {
  autograd::set_inplace_check_hook(&check_capture);
  tg::detail::set_tensor_creation_hook(&record_creation);
  return true;
}();

}  // namespace
}  // namespace tg::functorch

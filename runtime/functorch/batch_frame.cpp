#include "functorch/batch_frame.h"

#include "Functions.h"
#include "TensorMethods.h"
#include "core/error.h"
#include "functorch/batched_tensor.h"
#include "functorch/interpreter_stack.h"

namespace tg::functorch {
namespace {

void visit_tensors(const IValue& v, const std::function<void(const Tensor&)>& fn) {
  if (v.isTensor()) {
    fn(v.toTensor());
  } else if (v.isTensorList()) {
    for (const Tensor& t : v.toTensorList()) fn(t);
  } else if (v.isList()) {
    for (const IValue& e : v.toList()) visit_tensors(e, fn);
  }
}

}  // namespace

BatchFrame::BatchFrame(const OperatorHandle& handle, Stack* stack) : op(handle), schema(handle.schema()) {
  const size_t n = schema.arguments.size();
  TG_INTERNAL_ASSERT(stack->size() >= n, "boxed call with too few arguments");
  args.assign(std::make_move_iterator(stack->end() - static_cast<std::ptrdiff_t>(n)),
              std::make_move_iterator(stack->end()));
  stack->resize(stack->size() - n);
  for (const IValue& a : args) {
    visit_tensors(a, [&](const Tensor& t) {
      const BatchedTensorImpl* b = maybe_batched(t);
      if (b == nullptr) return;
      TG_CHECK(find_interpreter(b->level()) != nullptr, "[vmap] ", name(), ": a BatchedTensor of vmap level ",
               b->level(), " escaped the vmap that made it (that vmap has returned); return it from the "
               "vmapped function instead of keeping it in a variable outside");
      if (b->level() > level) {
        level = b->level();
        batch_size = b->value().size(b->bdim());
      }
    });
  }
  TG_INTERNAL_ASSERT(level != 0, "batching rule called without a BatchedTensor");
}

bool BatchFrame::is_inplace() const {
  return !schema.arguments.empty() && schema.arguments[0].type.alias && schema.arguments[0].type.alias->is_write;
}

void BatchFrame::check_inplace_self() const {
  TG_CHECK(physical_at(args[0].toTensor(), level).has_value(), "[vmap] ", name(),
           ": in-place write into a tensor that is not batched, from arguments that are: the tensor was "
           "captured from outside the vmapped function, and each sample would overwrite it. Write into a "
           "copy (self.clone()) or pass the tensor as a vmap input");
}

std::vector<IValue> BatchFrame::call(std::vector<IValue> call_args) const {
  Stack s = std::move(call_args);
  op.callBoxed(&s);
  return s;
}

void BatchFrame::push_batched(Stack* stack, std::vector<IValue> outputs, int64_t bdim) const {
  for (IValue& v : outputs) {
    if (v.isTensor() && v.toTensor().defined()) {
      stack->push_back(make_batched(v.toTensor(), bdim, level));
    } else if (v.isTensorList()) {
      std::vector<Tensor> wrapped;
      for (const Tensor& t : v.toTensorList()) wrapped.push_back(make_batched(t, bdim, level));
      stack->push_back(std::move(wrapped));
    } else {
      stack->push_back(std::move(v));
    }
  }
}

Tensor batched_front(const Tensor& t, int64_t level, int64_t batch_size) {
  if (std::optional<Tensor> p = physical_at(t, level)) return *p;
  std::vector<int64_t> sizes{batch_size};
  sizes.insert(sizes.end(), t.sizes().begin(), t.sizes().end());
  return t.unsqueeze(0).expand(sizes);
}

}  // namespace tg::functorch

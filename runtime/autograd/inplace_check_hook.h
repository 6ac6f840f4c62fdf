// A check that every in-place operation autograd records runs first: how tg::func refuses an
// in-place write into a tensor captured from outside grad/vjp/jvp (runtime/functorch/
// capture_check.cpp) without autograd knowing of transforms.
// Threading: set once, at static initialization; the hook itself must be thread-safe.
#pragma once

#include <string_view>

#include "core/tensor.h"

namespace tg::autograd {

using InplaceCheckHook = void (*)(std::string_view op, const Tensor& self);
void set_inplace_check_hook(InplaceCheckHook hook);

}  // namespace tg::autograd

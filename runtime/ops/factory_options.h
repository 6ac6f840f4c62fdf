// The one TensorOptions field that the dispatcher's calls do not carry: requires_grad. The
// generated TensorOptions overloads pass their result through here, so that
// tg::ones({2}, tg::requires_grad()) is a leaf that requires grad (as in LibTorch), and an
// overload whose result aliases its input (to(options)) refuses the flag instead of ignoring it.
#pragma once

#include <string_view>

#include "TensorBody.h"

namespace tg {

// result, made a leaf that requires grad when options.requires_grad().
Tensor apply_requires_grad_option(std::string_view op, Tensor result, const TensorOptions& options);
// Throws when options.requires_grad() (LibTorch's "to(options) expects unset requires_grad flag").
void refuse_requires_grad_option(std::string_view op, const TensorOptions& options);

}  // namespace tg

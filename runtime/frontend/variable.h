// tg::autograd::Variable: LibTorch kept the name after Variable and Tensor merged; here, as
// there, a Variable is a Tensor (tg::Tensor, with its autograd methods).
#pragma once

#include "core/tensor.h"

namespace tg::autograd {

using Variable = Tensor;
using variable_list = std::vector<Variable>;

}  // namespace tg::autograd

// Printing a tensor as LibTorch does: the values, then a line like [ CPUFloatType{2,3} ].
#pragma once

#include <ostream>

#include "core/tensor.h"

namespace tg {

std::ostream& operator<<(std::ostream& out, const Tensor& t);
// LibTorch's type string: "CPUFloatType", "CUDALongType", ...
std::string type_string(const Tensor& t);

}  // namespace tg

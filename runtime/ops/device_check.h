// The device check of the generated backend wrappers, in one scan over the tensor arguments.
// checked_output_device(op, tensors, n) == common_device(first n of tensors), after what
// check_same_device(op, tensors) checks, with the same error (both in ops/structured.h).
// Included only by the generated Register*.cpp files.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string_view>

#include "core/tensor.h"

namespace tg {

// `tensors`: an operator's tensor arguments, its `num_inputs` inputs first, then its outs
// (the generator's schema rules put every out argument last). Raises tg::Error when a defined
// tensor that is not a CPU scalar is on another device than the first such tensor; returns
// the device of the first input that is not a CPU scalar, CPU when there is none.
Device checked_output_device(std::string_view op, std::initializer_list<const Tensor*> tensors,
                             std::size_t num_inputs);

}  // namespace tg

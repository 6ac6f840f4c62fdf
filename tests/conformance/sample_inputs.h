// Sample inputs: a Sample (shapes and values, from the schema) made into the arguments of a
// call, in one dtype, with values from a fixed seed, and the layouts the harness reshapes
// them into.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "op_spec.h"

namespace tg::conformance {

inline constexpr ScalarType kAllDtypes[] = {kDouble, kFloat, kHalf, kBFloat16, kLong,
                                            kInt,    kShort, kChar, kByte,     kBool};

// A tensor of `shape` and `dtype` whose values lie in `domain`; the same seed gives the same
// values.
Tensor random_tensor(IntArrayRef shape, ScalarType dtype, const Domain& domain, uint64_t seed);

// Every non-out argument of sample `index`, in schema order, in `dtype` (tensors whose
// argument pins a dtype keep it). Arguments the sample leaves out take the schema default;
// a factory without tensor inputs gets `dtype` as its `dtype` argument.
Stack materialize(const OpSpec& spec, const Sample& sample, ScalarType dtype, uint64_t seed);

// A copy whose tensors are cloned: for calls that write to their arguments.
Stack clone_tensors(const Stack& args);

// Every tensor in a stack, lists flattened, in order.
std::vector<Tensor> tensors_in(const Stack& values);

// "self: float32[3, 4], other: float32[4], alpha: 2".
std::string describe(const OpSpec& spec, const Stack& args);

// Out tensors for an out overload: empty (0 elements) with the given dtypes.
std::vector<Tensor> empty_outs(const std::vector<ScalarType>& dtypes, Device device);

// The same values in another memory layout; nullopt where the layout does not apply.
struct Layout {
  const char* name;
  bool keeps_values;  // false: "expanded" repeats the first row, so compare with its copy
  std::function<std::optional<Tensor>(const Tensor&)> apply;
};
const std::vector<Layout>& noncontiguous_layouts();

}  // namespace tg::conformance

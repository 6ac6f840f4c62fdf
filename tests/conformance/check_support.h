// What the checks share: seeded calls that report instead of throwing, failure messages that
// name the operator and the sample, and the out tensors an overload needs.
#pragma once

#include <string>
#include <vector>

#include "op_spec.h"

namespace tg::conformance {

inline constexpr uint64_t kSeed = 20261122;

// What a call gave: its results, or what it threw.
struct Outcome {
  Stack results;
  bool threw = false;
  bool tg_error = false;  // what it threw is a tg::Error
  std::string error;      // what() of the exception: message and source location
  std::string message;    // tg::Error::message(): the message alone
  explicit operator bool() const { return !threw; }
};

// Calls `caller` after seeding the default generator, so that random operators repeat.
Outcome call(Caller caller, const Stack& args, std::vector<Tensor>& outs);
// The boxed call by name, with the same seeding; outs are placed where the schema has them.
Outcome call_boxed(const OpSpec& spec, const Stack& args, std::vector<Tensor>& outs);

// "add.Tensor, sample 1 (self: float32[3, 4], other: float32[4], alpha: 2)".
std::string context(const OpSpec& spec, size_t sample, const Stack& args);
// Records a failed check with doctest; the test goes on.
void fail(const std::string& message);

// The dtypes of the outputs an out call needs: those the functional variant returns.
std::vector<ScalarType> out_dtypes(const OpSpec& spec, const Stack& args);
// The caller that runs the overload itself with fresh outs: for out overloads, outs of the
// functional result's dtypes.
Outcome call_self(const OpSpec& spec, const Stack& args);

// The index of each written (Tensor(a!)) argument.
std::vector<size_t> written_args(const OpSpec& spec);

}  // namespace tg::conformance

// Arguments for any operator, built from its schema alone (no per-operator code), so that one
// fuzz target and one sweep reach every operator in the registry through the boxed dispatcher.
// Values lean to the edges where bugs live: empty and size-1 dims, non-contiguous and expanded
// (stride-0) tensors, views sharing one storage, negative and huge integers, NaN and infinities,
// invalid enum values. Legal sizes stay small (a few thousand elements), so that a call that is
// valid finishes quickly; sizes that are too big are astronomically big (>= 2^50), so that they
// fail at once with an error instead of exhausting the machine. See docs/reliability.md.
#pragma once

#include <string>

#include <tensorgen/tensorgen.h>

#include "byte_source.h"

namespace tg_fuzz {

struct ArgumentOptions {
  // Every tensor gets at least one dim of size 0 (the zero-size sweep).
  bool zero_size_tensors = false;
};

// Arguments for `schema` (a prefix of them: trailing arguments with defaults may be left off).
tg::Stack random_arguments(const tg::FunctionSchema& schema, ByteSource& source, const ArgumentOptions& options = {});

// What a call did: returned, raised tg::Error, or raised something else (a bug: the message
// says what).
struct CallOutcome {
  enum Kind { Returned, TgError, ForeignException } kind = Returned;
  std::string message;
};

// Calls the operator boxed with random arguments, then, when `source` says so and an output is a
// floating tensor that requires grad, runs backward through it. Never throws.
CallOutcome call_with_random_arguments(const tg::OperatorHandle& op, ByteSource& source,
                                       const ArgumentOptions& options = {});

// Operators the fuzzers leave out, with why (none so far: a bug found is fixed, not listed).
bool is_excluded(const std::string& operator_name);

}  // namespace tg_fuzz

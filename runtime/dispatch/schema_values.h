// Boxed values seen through a schema: whether an IValue fits an argument's type, and the
// IValue a default written in a schema (`alpha=1`, `dim=None`, `dtype=long`) stands for.
#pragma once

#include "core/ivalue.h"
#include "dispatch/function_schema.h"

namespace tg {

// Whether `value` may be passed for an argument of `type`. Besides the exact kind, an int is
// accepted for a float, one int for an int[N], and a Tensor[] for a Tensor?[].
bool ivalue_matches(const SchemaType& type, const IValue& value);
// Rewrites an accepted value into the kind the argument's C++ type reads: an int given for a
// float becomes a float; one int given for an int[N] becomes N copies of it; a Tensor[] given
// for a Tensor?[] becomes a list of its tensors.
// Precondition: ivalue_matches(type, value).
void coerce_ivalue(const SchemaType& type, IValue& value);
// The default of `argument` as an IValue. Throws tg::ValueError when it has none or when the
// literal does not fit its type.
IValue default_ivalue(const Argument& argument);

}  // namespace tg

// Boxed values seen through a schema: whether an IValue fits an argument's type, and the
// IValue a default written in a schema (`alpha=1`, `dim=None`, `dtype=long`) stands for.
#pragma once

#include "core/ivalue.h"
#include "dispatch/function_schema.h"

namespace tg {

bool ivalue_matches(const SchemaType& type, const IValue& value);
// The default of `argument` as an IValue. Throws tg::ValueError when it has none or when the
// literal does not fit its type.
IValue default_ivalue(const Argument& argument);

}  // namespace tg

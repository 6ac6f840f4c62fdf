// parse_schema: text in PyTorch's function-schema grammar -> FunctionSchema.
// Invariants: parse_schema(s).str() == s for canonical s; whitespace between tokens is ignored.
// Errors raise tg::ValueError: "[parse_schema] <problem> at column <c>[, <detail>] in: <text>".
#pragma once

#include <string_view>

#include "dispatch/function_schema.h"

namespace tg {

// e.g. parse_schema("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor").
// See Note [Schema grammar] in schema_parser.cpp for what is accepted.
FunctionSchema parse_schema(std::string_view text);

}  // namespace tg

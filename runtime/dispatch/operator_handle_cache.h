// The typed handle of one operator, found once: what the generated Operators_*.cpp files'
// `call` and `redispatch` go through. One template for every operator (the generator emits
// only the two one-line entry points per operator), keyed on the operator's struct from
// Operators.h: its `name`, `overload_name` and `schema`.
// Included only by the generated Operators_*.cpp files.
#pragma once

#include "dispatch/dispatcher.h"

namespace tg::ops {

// The handle of `Op`, looked up and type-checked on first use (a static-guard check after).
// `static`: each generated shard keeps its own copy of the handles it uses, reached without
// the global offset table (an inline template's static would be a vague-linkage symbol, one
// more load per call in the shared library).
template <typename Op>
static const TypedOperatorHandle<typename Op::schema>& handle_for() {
  static const auto handle =
      Dispatcher::singleton().findSchemaOrThrow(Op::name, Op::overload_name).template typed<typename Op::schema>();
  return handle;
}

}  // namespace tg::ops

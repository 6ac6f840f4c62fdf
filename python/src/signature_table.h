// The signature table: one row per (overload, variant), generated from the schemas
// (python/templates/python_signatures.cpp.j2). Rows of one Python name are bound to one
// callable; rows keep the schemas' declaration order, which is the order overloads are tried.
#pragma once

#include <cstddef>

namespace tg::python {

struct SignatureRow {
  const char* python_name;  // "add", "add_": the schema name without its overload
  const char* schema;       // the full schema text, parsed once at import
  bool method;              // a Tensor method (self bound) rather than a tensorgen function
  bool factory;             // takes PyTorch's extra factory keyword `requires_grad`
};

extern const SignatureRow kSignatureRows[];
extern const size_t kNumSignatureRows;

}  // namespace tg::python

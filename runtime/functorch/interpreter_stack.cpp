#include "functorch/interpreter_stack.h"

#include <atomic>
#include <vector>

#include "core/error.h"

namespace tg::functorch {
namespace {
thread_local std::vector<Interpreter> tls_stack;
std::atomic<int64_t> next_level{1};
}  // namespace

std::string_view to_string(TransformType type) {
  switch (type) {
    case TransformType::Vmap: return "vmap";
    case TransformType::Grad: return "grad";
    case TransformType::Jvp: return "jvp";
  }
  return "?";
}

const Interpreter* find_interpreter(int64_t level) {
  for (const Interpreter& i : tls_stack) {
    if (i.level == level) return &i;
  }
  return nullptr;
}

int64_t depth(TransformType type) {
  int64_t n = 0;
  for (const Interpreter& i : tls_stack) n += i.type == type;
  return n;
}

std::vector<Interpreter> live_vmaps() {
  std::vector<Interpreter> out;
  for (const Interpreter& i : tls_stack) {
    if (i.type == TransformType::Vmap) out.push_back(i);
  }
  return out;
}

InterpreterGuard::InterpreterGuard(TransformType type, int64_t batch_size) : level_(next_level.fetch_add(1)) {
  tls_stack.push_back({type, level_, batch_size});
}

InterpreterGuard::~InterpreterGuard() {
  TG_INTERNAL_ASSERT(!tls_stack.empty() && tls_stack.back().level == level_, "transforms exit in LIFO order");
  tls_stack.pop_back();
}

}  // namespace tg::functorch

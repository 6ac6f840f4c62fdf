#include "functorch/interpreter_stack.h"

#include <atomic>
#include <vector>

#include "core/error.h"
#include "core/tensor_creation_hook.h"
#include "dispatch/local_dispatch_key_set.h"

namespace tg::functorch {
namespace {
thread_local std::vector<Interpreter> tls_stack;
// One entry per grad/vjp/jvp on tls_stack, innermost last: the tensors created inside it.
thread_local std::vector<std::unordered_set<const void*>> tls_created;
// One entry per grad/vjp/jvp on tls_stack: the thread's included dispatch keys before it.
// See Note [Captured tensors] in capture_check.cpp: while one runs, Autograd is included, so
// every in-place call reaches autograd's check, not only calls on tensors with history.
thread_local std::vector<DispatchKeySet> tls_included_before;
std::atomic<int64_t> next_level{1};
}  // namespace

std::string_view to_string(TransformType type) {
  switch (type) {
    case TransformType::Vmap: return "vmap";
    case TransformType::Grad: return "grad";
    case TransformType::Vjp: return "vjp";
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

const Interpreter* innermost_differentiating() {
  for (auto it = tls_stack.rbegin(); it != tls_stack.rend(); ++it) {
    if (it->type != TransformType::Vmap) return &*it;
  }
  return nullptr;
}

void note_created(const void* impl) {
  if (!tls_created.empty()) tls_created.back().insert(impl);
}

bool created_inside_innermost(const void* impl) {
  return !tls_created.empty() && tls_created.back().count(impl) != 0;
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
  if (type != TransformType::Vmap) {
    tls_created.emplace_back();
    detail::enable_tensor_creation_hook();
    LocalDispatchKeySet& keys = local_dispatch_key_set();
    tls_included_before.push_back(keys.included);
    keys.included = keys.included.add(DispatchKey::Autograd);
  }
}

InterpreterGuard::~InterpreterGuard() {
  TG_INTERNAL_ASSERT(!tls_stack.empty() && tls_stack.back().level == level_, "transforms exit in LIFO order");
  if (tls_stack.back().type != TransformType::Vmap) {
    detail::disable_tensor_creation_hook();
    local_dispatch_key_set().included = tls_included_before.back();
    tls_included_before.pop_back();
    // What was created inside this transform was created inside the enclosing one too.
    std::unordered_set<const void*> inner = std::move(tls_created.back());
    tls_created.pop_back();
    if (!tls_created.empty()) tls_created.back().merge(inner);
  }
  tls_stack.pop_back();
}

}  // namespace tg::functorch

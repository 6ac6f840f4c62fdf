// DispatchKey: the slots of an operator's dispatch table, lowest priority first.
// Runtime keys (< kNumRuntimeKeys) appear in key sets; alias keys exist only at registration,
// where they expand to the runtime keys they stand for (see alias_expansion()).
// The list below is the one source of truth; codegen's tests check their copy against it.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>

namespace tg {

#define TG_FORALL_RUNTIME_DISPATCH_KEYS(_)                                            \
  _(CPU)             /* backend: kernels in kernels/cpu */                           \
  _(CUDA)            /* backend: kernels in kernels/cuda */                          \
  _(PrivateUse1)     /* backend: for out-of-tree devices and tests */                \
  _(BackendSelect)   /* picks a backend for factories, which have no tensor input */ \
  _(Tracer)          /* records calls into a jit::Graph (runtime/jit/tracer.cpp) */   \
  _(Autograd)        /* records the graph, then redispatches below itself */         \
  _(FuncTorchBatched) /* vmap: batching rules over BatchedTensors (runtime/functorch) */ \
  _(PrivateUse2)     /* a key above autograd, for tracers/profilers and tests */

#define TG_FORALL_ALIAS_DISPATCH_KEYS(_) \
  _(CompositeExplicitAutograd)           \
  _(CompositeImplicitAutograd)

enum class DispatchKey : uint8_t {
  Undefined = 0,
#define TG_DEFINE_KEY(name) name,
  TG_FORALL_RUNTIME_DISPATCH_KEYS(TG_DEFINE_KEY)
#undef TG_DEFINE_KEY
  EndOfRuntimeKeys,
#define TG_DEFINE_KEY(name) name,
  TG_FORALL_ALIAS_DISPATCH_KEYS(TG_DEFINE_KEY)
#undef TG_DEFINE_KEY
  EndOfAliasKeys,
};

// Table size: one slot per runtime key, slot 0 (Undefined) included.
constexpr int kNumRuntimeKeys = static_cast<int>(DispatchKey::EndOfRuntimeKeys);

constexpr bool is_alias_key(DispatchKey k) {
  return k > DispatchKey::EndOfRuntimeKeys && k < DispatchKey::EndOfAliasKeys;
}
constexpr bool is_runtime_key(DispatchKey k) {
  return k > DispatchKey::Undefined && k < DispatchKey::EndOfRuntimeKeys;
}
constexpr bool is_backend_key(DispatchKey k) {
  return k == DispatchKey::CPU || k == DispatchKey::CUDA || k == DispatchKey::PrivateUse1;
}

std::string_view to_string(DispatchKey k);
std::ostream& operator<<(std::ostream& out, DispatchKey k);
// Parses a key's name ("CPU", "CompositeImplicitAutograd"); nullopt for an unknown name.
std::optional<DispatchKey> parse_dispatch_key(std::string_view name);

}  // namespace tg

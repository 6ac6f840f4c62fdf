// Dispatcher: the registry of operators, and the call paths through their dispatch tables.
// A call computes its key set, ((keys of its tensor arguments) | tls included) - tls
// excluded, masks out the operator's fallthrough keys, and runs the kernel in the slot of
// the highest remaining key. Registration takes mutex_; calls take no lock (table slots are
// atomic pointers to kernels that are never freed), so calls from any thread may run while
// another thread registers.
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "dispatch/local_dispatch_key_set.h"
#include "dispatch/operator_entry.h"

namespace tg {

template <typename Signature>
class TypedOperatorHandle;

// A cheap, copyable reference to a registered operator. Valid for the life of the process.
class OperatorHandle {
 public:
  const OperatorName& operator_name() const noexcept { return entry_->name(); }
  const FunctionSchema& schema() const;
  // Runtime key: whether a call reaching `key` runs a kernel there (its own, an alias key's or
  // a fallback; a fallthrough does not count). Alias key: whether a kernel is registered on it.
  bool hasKernelForDispatchKey(DispatchKey key) const;
  std::vector<DispatchKey> registeredKeys() const;
  std::string dumpState() const;

  // A typed view of the operator; throws tg::TypeError when Signature is not the C++
  // signature its kernels were registered with.
  template <typename Signature>
  TypedOperatorHandle<Signature> typed() const;

  // Boxed call: the operator's arguments are the top of the stack (trailing arguments with
  // defaults may be left off), and are replaced by its outputs. Arguments are checked
  // against the schema first, so a wrong type is a tg::TypeError naming the argument.
  void callBoxed(Stack* stack) const;
  void callBoxed(Stack& stack) const { callBoxed(&stack); }
  // Boxed call from inside a kernel for key set `ks` (no re-check, no TLS).
  void redispatchBoxed(DispatchKeySet ks, Stack* stack) const;

  OperatorEntry& entry() const noexcept { return *entry_; }
  bool operator==(const OperatorHandle& other) const noexcept { return entry_ == other.entry_; }

 protected:
  explicit OperatorHandle(OperatorEntry* entry) : entry_(entry) {}
  friend class Dispatcher;

  OperatorEntry* entry_;
};

namespace detail {

inline void add_dispatch_keys(DispatchKeySet& ks, const Tensor& t) {
  if (TensorImpl* impl = t.unsafeGetTensorImpl()) ks |= impl->key_set();
}
inline void add_dispatch_keys(DispatchKeySet& ks, const std::optional<Tensor>& t) {
  if (t.has_value()) add_dispatch_keys(ks, *t);
}
inline void add_dispatch_keys(DispatchKeySet& ks, TensorList list) {
  for (const Tensor& t : list) add_dispatch_keys(ks, t);
}
inline void add_dispatch_keys(DispatchKeySet& ks, const std::vector<std::optional<Tensor>>& list) {
  for (const auto& t : list) add_dispatch_keys(ks, t);
}
// Non-tensor arguments carry no keys. (Constrained, so that it never outranks the overloads
// above: an unconstrained template would be an exact match for a derived tensor type.)
template <typename T>
  requires(!std::is_base_of_v<TensorBase, T>)
inline void add_dispatch_keys(DispatchKeySet&, const T&) {}

// The key set a call dispatches on (see the header comment).
template <typename... Args>
inline DispatchKeySet call_key_set(DispatchKeySet mask, const Args&... args) {
  DispatchKeySet ks;
  (add_dispatch_keys(ks, args), ...);
  const LocalDispatchKeySet& tls = local_dispatch_key_set();
  return ((ks | tls.included) - tls.excluded) & mask;
}

}  // namespace detail

template <typename Ret, typename... Args>
class TypedOperatorHandle<Ret(Args...)> : public OperatorHandle {
 public:
  Ret call(Args... args) const {
    DispatchKeySet ks = detail::call_key_set(entry_->dispatch_mask(), args...);
    return entry_->lookup(ks).template call<Ret, Args...>(*this, ks, std::forward<Args>(args)...);
  }
  // Call from inside a kernel: `ks` is the caller's key set with its own key (and any above)
  // removed, e.g. ks & DispatchKeySet::below(DispatchKey::Autograd).
  Ret redispatch(DispatchKeySet ks, Args... args) const {
    ks = ks & entry_->dispatch_mask();
    return entry_->lookup(ks).template call<Ret, Args...>(*this, ks, std::forward<Args>(args)...);
  }

 private:
  explicit TypedOperatorHandle(OperatorEntry* entry) : OperatorHandle(entry) {}
  friend class OperatorHandle;
};

// Undoes one registration (a def, an impl or a fallback) when destroyed.
class RegistrationHandle {
 public:
  RegistrationHandle() = default;
  explicit RegistrationHandle(std::function<void()> undo) : undo_(std::move(undo)) {}
  RegistrationHandle(RegistrationHandle&& other) noexcept : undo_(std::exchange(other.undo_, nullptr)) {}
  RegistrationHandle& operator=(RegistrationHandle&& other) noexcept {
    if (this != &other) {
      release();
      undo_ = std::exchange(other.undo_, nullptr);
    }
    return *this;
  }
  RegistrationHandle(const RegistrationHandle&) = delete;
  RegistrationHandle& operator=(const RegistrationHandle&) = delete;
  ~RegistrationHandle() { release(); }

 private:
  void release() {
    if (undo_) std::exchange(undo_, nullptr)();
  }
  std::function<void()> undo_;
};

class Dispatcher {
 public:
  static Dispatcher& singleton();

  // Lookup by "ns::name.overload" ("tg::add.Tensor"), or by name and overload separately.
  // Only operators with a schema are found.
  std::optional<OperatorHandle> findSchema(std::string_view full_name);
  std::optional<OperatorHandle> findSchema(const OperatorName& name);
  // As findSchema, but a missing operator is a tg::ValueError that suggests close names.
  OperatorHandle findSchemaOrThrow(std::string_view full_name);
  OperatorHandle findSchemaOrThrow(std::string_view name, std::string_view overload_name);
  // Every operator with a schema, as "ns::name.overload", sorted.
  std::vector<std::string> allOperatorNames();

  RegistrationHandle registerDef(FunctionSchema schema, std::string debug);
  RegistrationHandle registerImpl(OperatorName name, DispatchKey key, KernelFunction kernel, std::string debug);
  // A boxed kernel (or fallthrough) that serves `key` for every operator without its own.
  RegistrationHandle registerFallback(DispatchKey key, KernelFunction kernel, std::string debug);


 private:
  // The public API is PyTorch's, in its camelCase (findSchema, callBoxed, dumpState, ...);
  // what only the dispatcher's classes call is snake_case, as the rest of tensorgen, and
  // private: no operation has a name in each style.
  friend class OperatorHandle;
  Dispatcher() = default;
  // See OperatorHandle::typed.
  void check_typed_signature(OperatorEntry& entry, const std::type_info& signature);
  // Registration state of one operator, read under the registry lock.
  std::string dump_state(const OperatorEntry& entry);
  std::vector<DispatchKey> registered_keys(const OperatorEntry& entry);

  // Precondition: mutex_ held.
  OperatorEntry& find_or_create(const OperatorName& name);
  OperatorEntry* find(const std::string& full_name);
  void update_all_tables();
  FallbackTable fallback_table() const;

  // Guards every member below and all registration state of every entry.
  std::mutex mutex_;
  // Entries are never destroyed, so OperatorHandles and in-flight calls stay valid.
  std::deque<OperatorEntry> entries_;
  std::unordered_map<std::string, OperatorEntry*> by_name_;
  struct Fallback {
    uint64_t id;
    const KernelFunction* kernel;
    std::string debug;
  };
  std::array<std::vector<Fallback>, kNumRuntimeKeys> fallbacks_;  // newest last
  std::deque<KernelFunction> fallback_storage_;                   // append-only, like entries_
  uint64_t next_fallback_id_ = 0;
};

template <typename Signature>
TypedOperatorHandle<Signature> OperatorHandle::typed() const {
  Dispatcher::singleton().check_typed_signature(*entry_, typeid(Signature));
  return TypedOperatorHandle<Signature>(entry_);
}

}  // namespace tg
